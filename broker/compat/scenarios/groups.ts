// Consumer groups: coordinator lookup, joins that go wrong, offsets of unknown groups, deletes.
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario, ScenarioContext } from '../scenario';

/** ConsumerProtocolSubscription v0 for topic gr-a: version, topics[], userData(null). */
const SUBSCRIPTION = Buffer.from([0, 0, 0, 0, 0, 1, 0, 4, ...Buffer.from('gr-a'), 0xff, 0xff, 0xff, 0xff]);

const joinBody = (groupId: string, memberId: string, sessionTimeoutMs = 10_000) => ({
  groupId,
  sessionTimeoutMs,
  rebalanceTimeoutMs: 10_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: SUBSCRIPTION }],
  reason: null,
});

const offsetFetchV8 = (groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null) => ({
  groups: [{ groupId, topics }],
  requireStable: false,
});

async function setup(ctx: ScenarioContext, groupIds: string[]): Promise<void> {
  await ctx.quiet(ApiKey.CreateTopics, 7, {
    topics: [{ name: 'gr-a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  await ctx.waitForTopic('gr-a');
  for (const g of groupIds) await ctx.waitForCoordinator(g);
}

export const groupScenarios: Scenario[] = [
  {
    name: 'find-coordinator',
    about: 'FindCoordinator v3 (one key) and v4 (batched), group and transaction keys, bad key type',
    async run(ctx) {
      await setup(ctx, ['fc-g']);
      await ctx.send('v3 group key', ApiKey.FindCoordinator, 3, { key: 'fc-g', keyType: 0 });
      await ctx.send('v4 two group keys', ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['fc-g', 'fc-h'] });
      await ctx.send('v3 empty group id', ApiKey.FindCoordinator, 3, { key: '', keyType: 0 });
      await ctx.send('v4 key type 7 (unknown)', ApiKey.FindCoordinator, 4, { keyType: 7, coordinatorKeys: ['x'] });
      await ctx.send('v0 group key', ApiKey.FindCoordinator, 0, { key: 'fc-g' });
    },
  },
  {
    name: 'join-group',
    about: 'JoinGroup v9: unknown member, member id required, bad session timeout, empty group id',
    async run(ctx) {
      await setup(ctx, ['jg-g']);
      await ctx.send('unknown member id on a new group', ApiKey.JoinGroup, 9, joinBody('jg-g', 'no-such-member'));
      await ctx.send('empty member id (KIP-394: MEMBER_ID_REQUIRED)', ApiKey.JoinGroup, 9, joinBody('jg-g', ''));
      await ctx.send('session timeout 1 ms', ApiKey.JoinGroup, 9, joinBody('jg-g2', '', 1));
      await ctx.send('session timeout 1 hour', ApiKey.JoinGroup, 9, joinBody('jg-g2', '', 3_600_000));
      await ctx.send('empty group id', ApiKey.JoinGroup, 9, joinBody('', ''));
      await ctx.send('unknown protocol type mix', ApiKey.JoinGroup, 9, { ...joinBody('jg-g3', ''), protocols: [] });
      await ctx.send('heartbeat unknown group', ApiKey.Heartbeat, 4, {
        groupId: 'jg-nope',
        generationId: 1,
        memberId: 'm',
        groupInstanceId: null,
      });
      await ctx.send('leave unknown group', ApiKey.LeaveGroup, 5, {
        groupId: 'jg-nope',
        members: [{ memberId: 'm', groupInstanceId: null, reason: null }],
      });
      await ctx.send('sync unknown group', ApiKey.SyncGroup, 5, {
        groupId: 'jg-nope',
        generationId: 1,
        memberId: 'm',
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [],
      });
    },
  },
  {
    name: 'offsets',
    about: 'OffsetCommit v8 / OffsetFetch v8 and v7 for unknown groups, simple (generation -1) commits, unknown topics',
    async run(ctx) {
      await setup(ctx, ['of-g', 'of-simple']);
      await ctx.send(
        'fetch unknown group, named partitions',
        ApiKey.OffsetFetch,
        8,
        offsetFetchV8('of-g', [{ name: 'gr-a', partitionIndexes: [0, 1] }]),
      );
      await ctx.send('fetch unknown group, all topics', ApiKey.OffsetFetch, 8, offsetFetchV8('of-g', null));
      await ctx.send('v7 fetch unknown group, named partitions', ApiKey.OffsetFetch, 7, {
        groupId: 'of-g',
        topics: [{ name: 'gr-a', partitionIndexes: [0] }],
        requireStable: false,
      });
      const commit = (
        step: string,
        groupId: string,
        generationIdOrMemberEpoch: number,
        memberId: string,
        name = 'gr-a',
        partitionIndex = 0,
      ) =>
        ctx.send(step, ApiKey.OffsetCommit, 8, {
          groupId,
          generationIdOrMemberEpoch,
          memberId,
          groupInstanceId: null,
          topics: [
            {
              name,
              partitions: [{ partitionIndex, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: 'm' }],
            },
          ],
        });
      await commit('simple commit to a new group (generation -1)', 'of-simple', -1, '');
      await commit('commit with a member id to an unknown group', 'of-g', 3, 'no-such-member');
      await commit('simple commit for an unknown topic', 'of-simple', -1, '', 'of-unknown-topic');
      await commit('simple commit for an unknown partition', 'of-simple', -1, '', 'gr-a', 9);
      await ctx.send('fetch the simple group', ApiKey.OffsetFetch, 8, offsetFetchV8('of-simple', null));
      await ctx.send('v2 commit (the oldest Kafka 4 serves)', ApiKey.OffsetCommit, 2, {
        groupId: 'of-simple',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        retentionTimeMs: -1n,
        topics: [{ name: 'gr-a', partitions: [{ partitionIndex: 1, committedOffset: 7n, committedMetadata: null }] }],
      });
      const offsetDelete = (step: string, groupId: string, name: string) =>
        ctx.send(step, ApiKey.OffsetDelete, 0, { groupId, topics: [{ name, partitions: [{ partitionIndex: 0 }] }] });
      await offsetDelete('offset delete for an unknown group', 'of-none', 'gr-a');
      await offsetDelete('offset delete for an unknown topic', 'of-simple', 'of-unknown-topic');
      await offsetDelete('offset delete of a committed partition', 'of-simple', 'gr-a');
      await ctx.send('v1 fetch after the v2 commit', ApiKey.OffsetFetch, 1, {
        groupId: 'of-simple',
        topics: [{ name: 'gr-a', partitionIndexes: [0, 1] }],
      });
    },
  },
  {
    name: 'groups-lifecycle',
    about: 'DescribeGroups/ListGroups/DeleteGroups on unknown, simple and non-empty groups',
    async run(ctx) {
      await setup(ctx, ['gl-member', 'gl-simple']);
      await ctx.quiet(ApiKey.OffsetCommit, 8, {
        groupId: 'gl-simple',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          {
            name: 'gr-a',
            partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
          },
        ],
      });
      const first = await ctx.quiet(ApiKey.JoinGroup, 9, joinBody('gl-member', ''));
      // The second join completes after the group's initial rebalance delay (3 s on Kafka by default).
      const joined = await ctx.send(
        'join with the assigned member id',
        ApiKey.JoinGroup,
        9,
        joinBody('gl-member', first.memberId),
      );
      await ctx.send('describe unknown group', ApiKey.DescribeGroups, 5, {
        groups: ['gl-unknown'],
        includeAuthorizedOperations: false,
      });
      await ctx.send('describe simple group', ApiKey.DescribeGroups, 5, {
        groups: ['gl-simple'],
        includeAuthorizedOperations: false,
      });
      await ctx.send('describe group with a member', ApiKey.DescribeGroups, 5, {
        groups: ['gl-member'],
        includeAuthorizedOperations: false,
      });
      await ctx.send('list groups', ApiKey.ListGroups, 4, { statesFilter: [] });
      await ctx.send('delete unknown, simple and non-empty groups', ApiKey.DeleteGroups, 2, {
        groupsNames: ['gl-unknown', 'gl-simple', 'gl-member'],
      });
      if (joined?.memberId) {
        await ctx.send('leave the group', ApiKey.LeaveGroup, 5, {
          groupId: 'gl-member',
          members: [{ memberId: joined.memberId, groupInstanceId: null, reason: null }],
        });
      }
      await ctx.send('delete the now empty group', ApiKey.DeleteGroups, 2, { groupsNames: ['gl-member'] });
      await ctx.send('delete with an empty group id', ApiKey.DeleteGroups, 2, { groupsNames: [''] });
    },
  },
];
