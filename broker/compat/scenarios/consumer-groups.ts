// KIP-848 consumer groups: ConsumerGroupHeartbeat joins, revocation, bad requests and fencing;
// ConsumerGroupDescribe, ListGroups v5 types, DescribeGroups of a consumer group, member-epoch
// offsets, a classic member joining, syncing and leaving a consumer group, leaving and deleting.
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario, ScenarioContext } from '../scenario';
import { encodeSubscription } from '../../src/protocol/consumer-protocol';

const GROUP = 'cgh-g';

async function topicIdOf(ctx: ScenarioContext, topic: string): Promise<string> {
  const md = await ctx.quiet(ApiKey.Metadata, 12, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  return md.topics[0].topicId;
}

const heartbeat = (memberId: string, memberEpoch: number, more: Record<string, unknown> = {}) => ({
  groupId: GROUP,
  memberId,
  memberEpoch,
  instanceId: null,
  rackId: null,
  rebalanceTimeoutMs: -1,
  subscribedTopicNames: null,
  subscribedTopicRegex: null,
  serverAssignor: null,
  topicPartitions: null,
  ...more,
});

const join = (memberId: string, more: Record<string, unknown> = {}) =>
  heartbeat(memberId, 0, { rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['cgh-a'], topicPartitions: [], ...more });

export const consumerGroupScenarios: Scenario[] = [
  {
    name: 'consumer-group-heartbeat',
    about:
      'KIP-848: joins, revocation before assignment, bad requests, fencing, describe, list, offsets, leave, delete',
    async run(ctx) {
      await ctx.quiet(ApiKey.CreateTopics, 7, {
        topics: [{ name: 'cgh-a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      await ctx.waitForTopic('cgh-a');
      await ctx.waitForCoordinator(GROUP);
      const id = await topicIdOf(ctx, 'cgh-a');
      const owned = (partitions: number[]) => ({ topicPartitions: [{ topicId: id, partitions }] });

      await ctx.send(
        'join: no subscription',
        ApiKey.ConsumerGroupHeartbeat,
        1,
        join('m-1', { subscribedTopicNames: [] }),
      );
      await ctx.send(
        'join: no rebalance timeout',
        ApiKey.ConsumerGroupHeartbeat,
        1,
        join('m-1', { rebalanceTimeoutMs: -1 }),
      );
      await ctx.send('join: owned partitions', ApiKey.ConsumerGroupHeartbeat, 1, join('m-1', owned([0])));
      await ctx.send('epoch -3', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('m-1', -3));
      await ctx.send('unknown assignor', ApiKey.ConsumerGroupHeartbeat, 1, join('m-1', { serverAssignor: 'sticky' }));
      await ctx.send(
        'bad regex',
        ApiKey.ConsumerGroupHeartbeat,
        1,
        join('m-1', { subscribedTopicNames: null, subscribedTopicRegex: 'cgh-[' }),
      );
      await ctx.send('unknown member of an unknown group', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('ghost', 3));

      await ctx.send('first member joins', ApiKey.ConsumerGroupHeartbeat, 1, join('m-1'));
      await ctx.send('first member, incremental', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('m-1', 1));
      await ctx.send('epoch from the future', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('m-1', 9));
      await ctx.send('second member joins', ApiKey.ConsumerGroupHeartbeat, 1, join('m-2'));
      await ctx.send(
        'first member must revoke one',
        ApiKey.ConsumerGroupHeartbeat,
        1,
        heartbeat('m-1', 1, owned([0, 1])),
      );
      await ctx.send('describe while reconciling', ApiKey.ConsumerGroupDescribe, 0, {
        groupIds: [GROUP, 'cgh-none'],
        includeAuthorizedOperations: false,
      });
      await ctx.send(
        'first member rejoins with epoch 0 (not its previous epoch)',
        ApiKey.ConsumerGroupHeartbeat,
        1,
        join('m-1'),
      );
      await ctx.send('list consumer groups', ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] });
      await ctx.send('list classic groups', ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['classic'] });
      await ctx.send('DescribeGroups of a consumer group', ApiKey.DescribeGroups, 5, {
        groups: [GROUP],
        includeAuthorizedOperations: false,
      });
      const commit = (memberId: string, epoch: number) => ({
        groupId: GROUP,
        generationIdOrMemberEpoch: epoch,
        memberId,
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [
          {
            name: 'cgh-a',
            partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }],
          },
        ],
      });
      await ctx.send('commit with the member epoch', ApiKey.OffsetCommit, 9, commit('m-2', 2));
      await ctx.send('commit with a stale epoch', ApiKey.OffsetCommit, 9, commit('m-2', 1));
      await ctx.send('commit by a member with v8', ApiKey.OffsetCommit, 8, commit('m-2', 2));
      await ctx.send('commit without a member', ApiKey.OffsetCommit, 9, commit('', -1));
      await ctx.send('fetch with a stale epoch', ApiKey.OffsetFetch, 9, {
        groups: [{ groupId: GROUP, memberId: 'm-2', memberEpoch: 1, topics: null }],
        requireStable: false,
      });
      await ctx.send('fetch with the member epoch', ApiKey.OffsetFetch, 9, {
        groups: [{ groupId: GROUP, memberId: 'm-2', memberEpoch: 2, topics: null }],
        requireStable: false,
      });
      // A classic member joins the consumer group with members (served by it: Kafka's
      // classicGroupJoinToConsumerGroup), syncs, heartbeats and leaves.
      const classicJoin = (memberId: string) => ({
        groupId: GROUP,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: encodeSubscription({ topics: ['cgh-a'], ownedPartitions: [] }, 1) }],
        reason: null,
      });
      const required = await ctx.send('classic JoinGroup to it', ApiKey.JoinGroup, 9, classicJoin(''));
      const classicId = String(required?.memberId ?? '');
      const joined = await ctx.send(
        'classic JoinGroup with its member id',
        ApiKey.JoinGroup,
        9,
        classicJoin(classicId),
      );
      const generationId = Number(joined?.generationId ?? -1);
      await ctx.send('classic SyncGroup', ApiKey.SyncGroup, 5, {
        groupId: GROUP,
        generationId,
        memberId: classicId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [],
      });
      await ctx.send('classic Heartbeat with a wrong generation', ApiKey.Heartbeat, 4, {
        groupId: GROUP,
        generationId: generationId + 5,
        memberId: classicId,
        groupInstanceId: null,
      });
      await ctx.send('classic LeaveGroup', ApiKey.LeaveGroup, 5, {
        groupId: GROUP,
        members: [{ memberId: classicId, groupInstanceId: null, reason: null }],
      });
      await ctx.send('second member rejoins with epoch 0', ApiKey.ConsumerGroupHeartbeat, 1, join('m-2'));
      await ctx.send('delete while members remain', ApiKey.DeleteGroups, 2, { groupsNames: [GROUP] });
      await ctx.send('first member leaves', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('m-1', -1));
      await ctx.send('second member leaves', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('m-2', -1));
      await ctx.send('leave again', ApiKey.ConsumerGroupHeartbeat, 1, heartbeat('m-2', -1));
      await ctx.send('describe empty', ApiKey.ConsumerGroupDescribe, 0, {
        groupIds: [GROUP],
        includeAuthorizedOperations: false,
      });
      await ctx.send('delete the empty group', ApiKey.DeleteGroups, 2, { groupsNames: [GROUP] });
    },
  },
];
