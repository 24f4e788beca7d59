// Committed offsets through the coordinator (memory storage, and SQLite across a reopen), plus the
// admin side: ListGroups, DescribeGroups, DeleteGroups, OffsetDelete.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { consumerAssignment, consumerSubscription } from '../../src/protocol/consumer-protocol';
import { GroupCoordinator } from '../../src/groups/coordinator';
import { GroupState } from '../../src/groups/group-state';
import { ErrorCode } from '../../src/protocol/error-codes';
import { silentLogger } from '../../src/logger';
import { openStorage } from '../../src/storage/open-storage';
import { assignmentOf, flush, GROUP, harness, join, stableSingle, sync } from './harness';

const commit = (coord: GroupCoordinator, over: Partial<Parameters<GroupCoordinator['commitOffsets']>[0]> = {}) =>
  coord.commitOffsets({
    groupId: GROUP,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    offsets: [{ topic: 't', partition: 0, offset: 42, leaderEpoch: 3, metadata: 'meta' }],
    ...over,
  });

function withTopics() {
  const h = harness();
  h.storage.createTopic('t', 3, {});
  h.storage.createTopic('u', 1, {});
  return h;
}

describe('OffsetCommit / OffsetFetch', () => {
  it('stores offset, leader epoch and metadata; a partition without a commit answers -1', async () => {
    const { coord } = withTopics();
    expect(await commit(coord)).toEqual([ErrorCode.NONE]);
    const r = await coord.fetchOffsets(GROUP, [{ name: 't', partitions: [0, 1] }]);
    expect(r).toEqual({
      errorCode: 0,
      topics: [
        {
          name: 't',
          partitions: [
            { partition: 0, offset: 42, leaderEpoch: 3, metadata: 'meta', errorCode: 0 },
            { partition: 1, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 },
          ],
        },
      ],
    });
    expect(
      (await coord.fetchOffsets('never-committed', [{ name: 't', partitions: [0] }])).topics[0]!.partitions[0]!.offset,
    ).toBe(-1);
  });

  it('fetches every committed partition when topics is null; null metadata reads back as ""', async () => {
    const { coord } = withTopics();
    await commit(coord, {
      offsets: [
        { topic: 'u', partition: 0, offset: 5, leaderEpoch: -1, metadata: null },
        { topic: 't', partition: 2, offset: 7, leaderEpoch: -1, metadata: '' },
      ],
    });
    const all = await coord.fetchOffsets(GROUP, null);
    expect(
      all.topics.map((t) => [t.name, t.partitions.map((p) => [p.partition, p.offset, p.metadata])]).sort(),
    ).toEqual([
      ['t', [[2, 7, '']]],
      ['u', [[0, 5, '']]],
    ]);
  });

  it('rejects unknown partitions and oversized metadata per partition', async () => {
    const { coord } = withTopics();
    const errors = await commit(coord, {
      offsets: [
        { topic: 't', partition: 3, offset: 1, leaderEpoch: -1, metadata: null },
        { topic: 'nope', partition: 0, offset: 1, leaderEpoch: -1, metadata: null },
        { topic: 't', partition: 1, offset: 1, leaderEpoch: -1, metadata: 'x'.repeat(4097) },
        { topic: 't', partition: 0, offset: 9, leaderEpoch: -1, metadata: null },
      ],
    });
    expect(errors).toEqual([
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.OFFSET_METADATA_TOO_LARGE,
      ErrorCode.NONE,
    ]);
    expect((await coord.fetchOffsets(GROUP, null)).topics).toEqual([
      { name: 't', partitions: [{ partition: 0, offset: 9, leaderEpoch: -1, metadata: '', errorCode: 0 }] },
    ]);
  });

  it('fences commits: members of the current generation only while the group has members', async () => {
    const { coord } = withTopics();
    const a = await stableSingle(coord);
    expect(await commit(coord, { generationId: 1, memberId: a.memberId })).toEqual([ErrorCode.NONE]);
    expect(await commit(coord, { generationId: 0, memberId: a.memberId })).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    expect(await commit(coord, { generationId: 1, memberId: 'ghost' })).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    // a "simple" commit (generation -1, no member id) is refused while the group has members
    expect(await commit(coord)).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    // the member has its new generation but not its assignment yet
    const b = join(coord, { clientId: 'b' });
    const a2 = join(coord, { memberId: a.memberId });
    await flush();
    expect(await commit(coord, { generationId: 2, memberId: b.value!.memberId })).toEqual([
      ErrorCode.REBALANCE_IN_PROGRESS,
    ]);
    sync(coord, a.memberId, a2.value!.generationId, []);
    await flush();
    expect(await commit(coord, { generationId: 2, memberId: b.value!.memberId })).toEqual([ErrorCode.NONE]);
  });

  it('allows commits of the current generation during PreparingRebalance (eager consumers commit before rejoining)', async () => {
    const { coord } = withTopics();
    const a = await stableSingle(coord);
    join(coord, { clientId: 'b' });
    await flush();
    expect(coord.group(GROUP)!.state).toBe(GroupState.PreparingRebalance);
    expect(await commit(coord, { generationId: 1, memberId: a.memberId })).toEqual([ErrorCode.NONE]);
  });

  it('accepts simple commits for empty and unknown groups; a generation for an unknown group is stale', async () => {
    const { coord } = withTopics();
    expect(await commit(coord, { groupId: 'simple' })).toEqual([ErrorCode.NONE]);
    expect(await commit(coord, { groupId: 'simple', generationId: 3, memberId: 'm' })).toEqual([
      ErrorCode.ILLEGAL_GENERATION,
    ]);
    expect(await commit(coord, { groupId: 'simple', memberId: 'm' })).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    const a = await stableSingle(coord);
    coord.leaveGroup(GROUP, [{ memberId: a.memberId, groupInstanceId: null }]);
    expect(coord.group(GROUP)!.state).toBe(GroupState.Empty);
    expect(await commit(coord)).toEqual([ErrorCode.NONE]);
    expect(await commit(coord, { generationId: 1, memberId: a.memberId })).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
  });

  it('keeps offsets in the SQLite file across a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-groups-'));
    try {
      const url = `sqlite://${path.join(dir, 'broker.db')}`;
      const first = await openStorage(url);
      await first.createTopic('t', 2, {});
      const c1 = new GroupCoordinator({ storage: first, logger: silentLogger });
      expect(
        await commit(c1, { offsets: [{ topic: 't', partition: 1, offset: 100, leaderEpoch: 7, metadata: 'kept' }] }),
      ).toEqual([0]);
      c1.close();
      await first.close();

      const second = await openStorage(url);
      const c2 = new GroupCoordinator({ storage: second, logger: silentLogger });
      expect((await c2.fetchOffsets(GROUP, [{ name: 't', partitions: [1] }])).topics[0]!.partitions[0]).toEqual({
        partition: 1,
        offset: 100,
        leaderEpoch: 7,
        metadata: 'kept',
        errorCode: 0,
      });
      expect(await c2.listGroups()).toEqual([
        { groupId: GROUP, protocolType: '', groupState: 'Empty', groupType: 'classic' },
      ]);
      c2.close();
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ListGroups / DescribeGroups', () => {
  it('lists live groups and groups that only have offsets, filtered by state and type', async () => {
    const { coord } = withTopics();
    await stableSingle(coord);
    await commit(coord, { groupId: 'offsets-only' });
    const all = (await coord.listGroups()).sort((a, b) => a.groupId.localeCompare(b.groupId));
    expect(all).toEqual([
      { groupId: GROUP, protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' },
      { groupId: 'offsets-only', protocolType: '', groupState: 'Empty', groupType: 'classic' },
    ]);
    expect((await coord.listGroups(['empty'])).map((g) => g.groupId)).toEqual(['offsets-only']);
    expect((await coord.listGroups(['STABLE', 'Dead'])).map((g) => g.groupId)).toEqual([GROUP]);
    expect(await coord.listGroups([], ['Classic'])).toHaveLength(2);
    expect(await coord.listGroups([], ['consumer'])).toHaveLength(0);
  });

  it('describes members with metadata and assignment while Stable, without them while rebalancing', async () => {
    const { coord } = withTopics();
    const a = await stableSingle(coord);
    const d = await coord.describeGroup(GROUP);
    expect(d).toMatchObject({ errorCode: 0, groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(d.members).toHaveLength(1);
    expect(d.members[0]).toMatchObject({
      memberId: a.memberId,
      clientId: 'client',
      clientHost: '/127.0.0.1',
      groupInstanceId: null,
    });
    expect(consumerSubscription(d.members[0]!.memberMetadata)!.topics).toEqual(['t']);
    expect(consumerAssignment(d.members[0]!.memberAssignment)!.assignedPartitions).toEqual([
      { topic: 't', partitions: [0] },
    ]);

    join(coord, { clientId: 'b' });
    await flush();
    const during = await coord.describeGroup(GROUP);
    expect(during).toMatchObject({ groupState: 'PreparingRebalance', protocolData: '' });
    expect(during.members.map((m) => m.memberMetadata.length)).toEqual([0, 0]);
  });

  it('describes an unknown group as Dead and an offsets-only group as Empty', async () => {
    const { coord } = withTopics();
    await commit(coord, { groupId: 'offsets-only' });
    expect(await coord.describeGroup('nope')).toEqual({
      errorCode: 0,
      groupId: 'nope',
      groupState: 'Dead',
      protocolType: '',
      protocolData: '',
      members: [],
    });
    expect((await coord.describeGroup('offsets-only')).groupState).toBe('Empty');
  });
});

describe('DeleteGroups / OffsetDelete', () => {
  it('deletes only empty groups, with their offsets', async () => {
    const { coord, storage } = withTopics();
    const a = await stableSingle(coord);
    await commit(coord, { generationId: 1, memberId: a.memberId });
    await commit(coord, { groupId: 'offsets-only' });
    expect(await coord.deleteGroups([GROUP, 'offsets-only', 'nope'])).toEqual([
      { groupId: GROUP, errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'offsets-only', errorCode: 0 },
      { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    expect(await storage.offsetGroups()).toEqual([GROUP]);
    coord.leaveGroup(GROUP, [{ memberId: a.memberId, groupInstanceId: null }]);
    expect(await coord.deleteGroups([GROUP])).toEqual([{ groupId: GROUP, errorCode: 0 }]);
    expect(await storage.offsetGroups()).toEqual([]);
    expect(coord.group(GROUP)).toBeUndefined();
    expect(await coord.listGroups()).toEqual([]);
  });

  it('OffsetDelete: anything in an empty group; only unsubscribed topics while members consume', async () => {
    const { coord } = withTopics();
    const a = await stableSingle(coord); // subscribed to t
    await commit(coord, {
      generationId: 1,
      memberId: a.memberId,
      offsets: [
        { topic: 't', partition: 0, offset: 1, leaderEpoch: -1, metadata: null },
        { topic: 'u', partition: 0, offset: 1, leaderEpoch: -1, metadata: null },
      ],
    });
    const r = await coord.deleteOffsets(GROUP, [
      { name: 't', partitions: [0] },
      { name: 'u', partitions: [0] },
      { name: 'nope', partitions: [0] },
    ]);
    expect(r).toEqual({
      errorCode: 0,
      topics: [
        { name: 't', partitions: [{ partition: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] },
        { name: 'u', partitions: [{ partition: 0, errorCode: 0 }] },
        { name: 'nope', partitions: [{ partition: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      ],
    });
    expect((await coord.fetchOffsets(GROUP, null)).topics.map((t) => t.name)).toEqual(['t']);
    coord.leaveGroup(GROUP, [{ memberId: a.memberId, groupInstanceId: null }]);
    expect(
      (await coord.deleteOffsets(GROUP, [{ name: 't', partitions: [0] }])).topics[0]!.partitions[0]!.errorCode,
    ).toBe(0);
    expect((await coord.fetchOffsets(GROUP, null)).topics).toEqual([]);
    expect((await coord.deleteOffsets('nope', [{ name: 't', partitions: [0] }])).errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
  });

  it('OffsetDelete on a non-consumer group with members is NON_EMPTY_GROUP', async () => {
    const { coord } = withTopics();
    const j = join(coord, { protocolType: 'connect', protocols: [{ name: 'default', metadata: Buffer.from('x') }] });
    await flush();
    sync(coord, j.value!.memberId, 1, [{ memberId: j.value!.memberId, assignment: assignmentOf('t', [0]) }]);
    await flush();
    expect((await coord.deleteOffsets(GROUP, [{ name: 't', partitions: [0] }])).errorCode).toBe(
      ErrorCode.NON_EMPTY_GROUP,
    );
  });
});
