// KIP-932 share-group admin: DescribeShareGroupOffsets, AlterShareGroupOffsets and
// DeleteShareGroupOffsets (keys 90-92), DeleteGroups and ListGroups of a share group, with a member
// that only heartbeats (ShareGroupHeartbeat v1) and after it left. Kafka 4.1 ships share groups off:
// the scenario enables them on Kafka first (UpdateFeatures share.version=1, what
// `kafka-features upgrade --feature share.version=1` sends).
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario, ScenarioContext } from '../scenario';

const GROUP = 'sga-g';
const TOPIC = 'sga-t';
const MEMBER = 'c2dhLWNvbXBhdC1tZW1iZXI';

const heartbeat = (memberEpoch: number) => ({
  groupId: GROUP,
  memberId: MEMBER,
  memberEpoch,
  rackId: null,
  subscribedTopicNames: memberEpoch === 0 ? [TOPIC] : null,
});

/** Kafka 4.1.1 serves share groups once share.version is 1 (UpdateFeatures); minnow always does. */
export async function enableShareGroups(ctx: ScenarioContext): Promise<void> {
  if (ctx.target !== 'kafka') return;
  const up = await ctx.quiet(ApiKey.UpdateFeatures, 1, {
    timeoutMs: 30_000,
    featureUpdates: [{ feature: 'share.version', maxVersionLevel: 1, upgradeType: 1 }],
    validateOnly: false,
  });
  if (up.errorCode !== 0) throw new Error(`enabling share groups on Kafka: ${up.errorCode} ${up.errorMessage}`);
}

export const shareGroupScenarios: Scenario[] = [
  {
    name: 'share-group-admin',
    about: 'KIP-932 admin: describe/alter/delete share-group offsets, delete and list share groups',
    async run(ctx) {
      await enableShareGroups(ctx);
      await ctx.quiet(ApiKey.CreateTopics, 7, {
        topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      await ctx.waitForTopic(TOPIC);
      await ctx.waitForCoordinator(GROUP);
      await ctx.send('describe offsets of an unknown group', ApiKey.DescribeShareGroupOffsets, 0, {
        groups: [{ groupId: GROUP, topics: [{ topicName: TOPIC, partitions: [0, 1] }] }],
      });
      await ctx.send('delete offsets of an unknown group', ApiKey.DeleteShareGroupOffsets, 0, {
        groupId: GROUP,
        topics: [{ topicName: TOPIC }],
      });
      await ctx.send('member joins', ApiKey.ShareGroupHeartbeat, 1, heartbeat(0));
      await ctx.send('list share groups', ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['share'] });
      await ctx.send('list classic groups', ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['classic'] });
      await ctx.send('alter with a member', ApiKey.AlterShareGroupOffsets, 0, {
        groupId: GROUP,
        topics: [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
      });
      await ctx.send('delete offsets with a member', ApiKey.DeleteShareGroupOffsets, 0, {
        groupId: GROUP,
        topics: [{ topicName: TOPIC }],
      });
      await ctx.send('delete the group with a member', ApiKey.DeleteGroups, 2, { groupsNames: [GROUP] });
      await ctx.send('member leaves', ApiKey.ShareGroupHeartbeat, 1, heartbeat(-1));
      await ctx.send('describe offsets, named topics', ApiKey.DescribeShareGroupOffsets, 0, {
        groups: [
          {
            groupId: GROUP,
            topics: [
              { topicName: TOPIC, partitions: [0, 1] },
              { topicName: 'sga-none', partitions: [0] },
            ],
          },
        ],
      });
      await ctx.send('alter an unknown topic', ApiKey.AlterShareGroupOffsets, 0, {
        groupId: GROUP,
        topics: [{ topicName: 'sga-none', partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
      });
      await ctx.send('delete offsets of an unknown topic', ApiKey.DeleteShareGroupOffsets, 0, {
        groupId: GROUP,
        topics: [{ topicName: 'sga-none' }],
      });
      await ctx.send('delete the empty group', ApiKey.DeleteGroups, 2, { groupsNames: [GROUP] });
      await ctx.send('list share groups after the delete', ApiKey.ListGroups, 5, {
        statesFilter: [],
        typesFilter: ['share'],
      });
    },
  },
];
