// The group API handlers: version-specific request shapes (FindCoordinator v4+ batches, OffsetFetch
// v8+ groups, LeaveGroup v3+ members) and that every response encodes in every advertised version.
import { promised } from '../../src/storage/sync-adapter';
import { GroupCoordinator } from '../../src/groups/coordinator';
import { TransactionCoordinator } from '../../src/transactions/coordinator';
import { ErrorCode } from '../../src/protocol/error-codes';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages';
import { Reader } from '../../src/protocol/reader';
import { Writer } from '../../src/protocol/writer';
import { newSession, PLAINTEXT_LISTENER } from '../../src/server/session';
import { Authorizer } from '../../src/server/authorizer';
import type { ApiHandler, BrokerContext, RequestContext } from '../../src/server/context';
import { groupHandlers } from '../../src/server/handlers/groups';
import { silentLogger } from '../../src/logger';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { FakeTimers } from './fake-timers';
import { subscription } from './harness';
import { ShareGroups } from '../../src/groups/share/share-groups';

function setup() {
  const engine = new MemoryStorage();
  engine.createTopic('t', 2, {});
  const storage = promised(engine);
  const timers = new FakeTimers();
  // 0: these tests drive one rebalance at a time and do not advance the fake clock for Kafka's 3 s delay.
  const groups = new GroupCoordinator({
    storage,
    logger: silentLogger,
    now: timers.now,
    timers,
    initialRebalanceDelayMs: 0,
  });
  const transactions = new TransactionCoordinator({ storage, logger: silentLogger, now: timers.now, timers, groups });
  const shareGroups = new ShareGroups({
    storage,
    logger: silentLogger,
    now: timers.now,
    fetchWaiters: { wait: () => Promise.resolve(), notify: () => {} },
  });
  const broker = {
    storage,
    groups,
    shareGroups,
    transactions,
    identity: { clusterId: 'c', nodeId: 7 },
    advertised: { host: 'broker.local', port: 9999 },
    logger: silentLogger,
    now: timers.now,
    authorizer: new Authorizer(storage, { superUsers: [], allowEveryoneIfNoAclFound: true }),
  } as unknown as BrokerContext;
  const handler = (apiKey: number) => groupHandlers.find((h) => h.apiKey === apiKey)!;
  /** Calls the handler as the server would, then encodes and decodes the response in that version. */
  const call = async (apiKey: number, apiVersion: number, req: unknown, clientId = 'client'): Promise<any> => {
    const ctx: RequestContext = {
      broker,
      apiKey,
      apiVersion,
      correlationId: 1,
      clientId,
      connectionId: 1,
      clientHost: '/127.0.0.1',
      session: newSession(PLAINTEXT_LISTENER, '127.0.0.1'),
    };
    const spec = API_SPEC_BY_KEY.get(apiKey)!;
    // The request goes through the codec too, so version-dependent defaults apply as on the wire.
    const rw = new Writer();
    spec.encodeRequest(rw, apiVersion, req);
    const decodedReq = spec.decodeRequest(new Reader(rw.toBuffer()), apiVersion);
    const body = await handler(apiKey).handle(ctx, decodedReq);
    const w = new Writer();
    spec.encodeResponse(w, apiVersion, body);
    return spec.decodeResponse(new Reader(w.toBuffer()), apiVersion);
  };
  return { storage, engine, groups, call, timers };
}

const K = {
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  DeleteGroups: 42,
  OffsetDelete: 47,
};
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

const joinReq = (memberId = '', groupInstanceId: string | null = null) => ({
  groupId: 'g',
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 20_000,
  memberId,
  groupInstanceId,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: subscription(['t']) }],
  reason: null,
});

/** Joins and syncs one member at JoinGroup/SyncGroup `v`; returns its id and generation. */
async function joinAndSync(
  call: ReturnType<typeof setup>['call'],
  v: number,
): Promise<{ memberId: string; generationId: number }> {
  let r = await call(K.JoinGroup, v, joinReq());
  if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) r = await call(K.JoinGroup, v, joinReq(r.memberId));
  expect(r.errorCode).toBe(0);
  const s = await call(K.SyncGroup, Math.min(v, 5), {
    groupId: 'g',
    generationId: r.generationId,
    memberId: r.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  expect(s.errorCode).toBe(0);
  return { memberId: r.memberId, generationId: r.generationId };
}

describe('advertised versions', () => {
  it('matches the issue: the ranges ApiVersions will advertise', () => {
    const ranges = Object.fromEntries(
      groupHandlers.map((h: ApiHandler) => [API_SPEC_BY_KEY.get(h.apiKey)!.name, `${h.minVersion}-${h.maxVersion}`]),
    );
    expect(ranges).toEqual({
      FindCoordinator: '0-6',
      JoinGroup: '0-9',
      SyncGroup: '0-5',
      Heartbeat: '0-4',
      LeaveGroup: '0-5',
      OffsetCommit: '0-9',
      OffsetFetch: '0-9',
      ListGroups: '0-5',
      DescribeGroups: '0-5',
      DeleteGroups: '0-2',
      OffsetDelete: '0-0',
    });
  });
});

describe('FindCoordinator', () => {
  it.each(range(0, 3))('v%i names this broker for a group', async (v) => {
    const { call } = setup();
    const r = await call(K.FindCoordinator, v, { key: 'g', keyType: 0 });
    expect(r).toMatchObject({ errorCode: 0, nodeId: 7, host: 'broker.local', port: 9999 });
  });

  it.each([4, 5, 6])('v%i answers each batched key, for groups and transactional ids', async (v) => {
    const { call } = setup();
    const r = await call(K.FindCoordinator, v, { keyType: 0, coordinatorKeys: ['a', 'b'] });
    expect(r.coordinators).toEqual([
      { key: 'a', nodeId: 7, host: 'broker.local', port: 9999, errorCode: 0, errorMessage: null },
      { key: 'b', nodeId: 7, host: 'broker.local', port: 9999, errorCode: 0, errorMessage: null },
    ]);
    const txn = await call(K.FindCoordinator, v, { keyType: 1, coordinatorKeys: ['tx'] });
    expect(txn.coordinators).toEqual([
      { key: 'tx', nodeId: 7, host: 'broker.local', port: 9999, errorCode: 0, errorMessage: null },
    ]);
  });

  it.each([1, 2, 3])('v%i names this broker for a transactional id (key type 1)', async (v) => {
    const { call } = setup();
    expect(await call(K.FindCoordinator, v, { key: 'tx', keyType: 1 })).toMatchObject({
      errorCode: 0,
      nodeId: 7,
      host: 'broker.local',
      port: 9999,
    });
  });

  it('answers an unknown key type INVALID_REQUEST', async () => {
    const { call } = setup();
    expect((await call(K.FindCoordinator, 2, { key: 'x', keyType: 9 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });
});

describe('JoinGroup / SyncGroup / Heartbeat / LeaveGroup in every version', () => {
  it.each(range(0, 9))('JoinGroup v%i', async (v) => {
    const { call } = setup();
    const first = await call(K.JoinGroup, v, joinReq());
    let joined = first;
    if (v >= 4) {
      expect(first).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, generationId: -1 });
      expect(first.memberId).toMatch(/^client-/);
      expect(first.protocolName).toBe(v >= 7 ? null : '');
      joined = await call(K.JoinGroup, v, joinReq(first.memberId));
    }
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: joined.memberId, protocolName: 'range' });
    const s = await call(K.SyncGroup, Math.min(v, 5), {
      groupId: 'g',
      generationId: 1,
      memberId: joined.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    });
    expect(s.errorCode).toBe(0);
    const { memberId, generationId } = joined;
    const hbVersion = Math.min(v, 4);
    expect(
      (await call(K.Heartbeat, hbVersion, { groupId: 'g', generationId, memberId, groupInstanceId: null })).errorCode,
    ).toBe(0);
    expect(
      (
        await call(K.Heartbeat, hbVersion, {
          groupId: 'g',
          generationId: generationId + 1,
          memberId,
          groupInstanceId: null,
        })
      ).errorCode,
    ).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('JoinGroup v7+ returns the protocol type; v5+ static members join without MEMBER_ID_REQUIRED', async () => {
    const { call } = setup();
    const r = await call(K.JoinGroup, 9, joinReq('', 'instance-1'));
    expect(r).toMatchObject({ errorCode: 0, protocolType: 'consumer', protocolName: 'range', skipAssignment: false });
    expect(r.members).toEqual([{ memberId: r.memberId, groupInstanceId: 'instance-1', metadata: subscription(['t']) }]);
  });

  it('JoinGroup v0 uses the session timeout as the rebalance timeout', async () => {
    const { call, groups } = setup();
    await call(K.JoinGroup, 0, joinReq());
    expect([...groups.group('g')!.members.values()][0]!.rebalanceTimeoutMs).toBe(10_000);
  });

  it('SyncGroup v5 checks the protocol name', async () => {
    const { call } = setup();
    const r = await call(K.JoinGroup, 3, joinReq());
    const s = await call(K.SyncGroup, 5, {
      groupId: 'g',
      generationId: r.generationId,
      memberId: r.memberId,
      protocolType: 'consumer',
      protocolName: 'roundrobin',
      assignments: [],
    });
    expect(s.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it.each(range(0, 2))('LeaveGroup v%i: one member, its error at the top level', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 3);
    expect((await call(K.LeaveGroup, v, { groupId: 'g', memberId })).errorCode).toBe(0);
    expect((await call(K.LeaveGroup, v, { groupId: 'g', memberId })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it.each(range(3, 5))('LeaveGroup v%i: a batch with per-member errors', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 3);
    const r = await call(K.LeaveGroup, v, {
      groupId: 'g',
      members: [
        { memberId, groupInstanceId: null, reason: 'bye' },
        { memberId: 'ghost', groupInstanceId: null },
      ],
    });
    expect(r.errorCode).toBe(0);
    expect(r.members.map((m: any) => [m.memberId, m.errorCode])).toEqual([
      [memberId, 0],
      ['ghost', ErrorCode.UNKNOWN_MEMBER_ID],
    ]);
  });
});

describe('offsets', () => {
  it.each(range(2, 9))('OffsetCommit v%i then OffsetFetch of the same partitions', async (v) => {
    const { call } = setup();
    const c = await call(K.OffsetCommit, v, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 1, committedOffset: 17n, committedLeaderEpoch: 2, committedMetadata: 'm' }],
        },
      ],
    });
    expect(c.topics).toEqual([{ name: 't', partitions: [{ partitionIndex: 1, errorCode: 0 }] }]);
    const f = await call(K.OffsetFetch, Math.min(v, 7), {
      groupId: 'g',
      topics: [{ name: 't', partitionIndexes: [0, 1] }],
    });
    expect(f.topics[0].partitions).toEqual([
      { partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
      {
        partitionIndex: 1,
        committedOffset: 17n,
        committedLeaderEpoch: v >= 6 && v >= 5 ? 2 : -1,
        metadata: 'm',
        errorCode: 0,
      },
    ]);
  });

  it('OffsetCommit of an offset past 2^53 - 1 (here int64 max) is refused for its partition; the others commit and OffsetFetch still answers', async () => {
    const { call } = setup();
    const c = await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: 2n ** 63n - 1n, committedLeaderEpoch: -1, committedMetadata: '' },
            { partitionIndex: 1, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' },
          ],
        },
      ],
    });
    expect(c.topics[0].partitions).toEqual([
      { partitionIndex: 0, errorCode: ErrorCode.INVALID_COMMIT_OFFSET_SIZE },
      { partitionIndex: 1, errorCode: 0 },
    ]);
    const f = await call(K.OffsetFetch, 7, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(f.topics[0].partitions.map((p: any) => p.committedOffset)).toEqual([-1n, 5n]);
  });

  it('OffsetCommit v1 (sarama before 1.41): a member commits with its generation; commitTimestamp is accepted', async () => {
    const { call } = setup();
    const { memberId, generationId } = await joinAndSync(call, 1);
    const commit = (gen: number, offset: bigint) =>
      call(K.OffsetCommit, 1, {
        groupId: 'g',
        generationIdOrMemberEpoch: gen,
        memberId,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: offset, commitTimestamp: -1n, committedMetadata: '' },
              {
                partitionIndex: 1,
                committedOffset: offset + 1n,
                commitTimestamp: 1_700_000_000_000n,
                committedMetadata: 'x',
              },
            ],
          },
        ],
      });
    expect((await commit(generationId, 4n)).topics[0].partitions).toEqual([
      { partitionIndex: 0, errorCode: 0 },
      { partitionIndex: 1, errorCode: 0 },
    ]);
    expect(
      (await commit(generationId + 1, 9n)).topics[0].partitions.map((p: { errorCode: number }) => p.errorCode),
    ).toEqual([ErrorCode.ILLEGAL_GENERATION, ErrorCode.ILLEGAL_GENERATION]);
    const f = await call(K.OffsetFetch, 1, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(
      f.topics[0].partitions.map((p: { committedOffset: bigint; metadata: string }) => [p.committedOffset, p.metadata]),
    ).toEqual([
      [4n, ''],
      [5n, 'x'],
    ]);
  });

  it('OffsetCommit v0: UNSUPPORTED_VERSION for every partition, as a KRaft Kafka 3.9 answers (v0 commits went to ZooKeeper); nothing stored', async () => {
    const { call, engine } = setup();
    const c = await call(K.OffsetCommit, 0, {
      groupId: 'g',
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: '' }] },
        { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: '' }] },
      ],
    });
    expect(c.topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION }] },
      { name: 'nope', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION }] },
    ]);
    const unknownOnly = await call(K.OffsetCommit, 0, {
      groupId: 'g',
      topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: '' }] }],
    });
    expect(unknownOnly.topics[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(engine.fetchOffsets('g')).toEqual([]);
  });

  it('OffsetFetch v0: UNSUPPORTED_VERSION and offset -1 for every partition asked, as a KRaft Kafka 3.9 answers', async () => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const f = await call(K.OffsetFetch, 0, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(f.topics).toEqual([
      {
        name: 't',
        partitions: [0, 1].map((partitionIndex) => ({
          partitionIndex,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
        })),
      },
    ]);
  });

  it.each([1, 2, 5, 7])('OffsetFetch v%i', async (v) => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: 4, committedMetadata: null }],
        },
      ],
    });
    const f = await call(K.OffsetFetch, v, {
      groupId: 'g',
      topics: v >= 2 ? null : [{ name: 't', partitionIndexes: [0] }],
      requireStable: false,
    });
    expect(f.topics).toEqual([
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: v >= 5 ? 4 : -1, metadata: '', errorCode: 0 },
        ],
      },
    ]);
  });

  it.each([8, 9])('OffsetFetch v%i fetches several groups at once', async (v) => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'a',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    await call(K.OffsetCommit, 8, {
      groupId: 'b',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const f = await call(K.OffsetFetch, v, {
      groups: [
        { groupId: 'a', memberId: null, memberEpoch: -1, topics: null },
        { groupId: 'b', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0, 1] }] },
      ],
      requireStable: false,
    });
    expect(f.groups).toEqual([
      {
        groupId: 'a',
        errorCode: 0,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
            ],
          },
        ],
      },
      {
        groupId: 'b',
        errorCode: 0,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
              { partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
            ],
          },
        ],
      },
    ]);
  });

  it('OffsetDelete v0', async () => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const r = await call(K.OffsetDelete, 0, {
      groupId: 'g',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(r).toEqual({
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }],
    });
    expect((await call(K.OffsetDelete, 0, { groupId: 'g', topics: [] })).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});

describe('admin', () => {
  it.each(range(0, 5))('ListGroups v%i (state filter from v4, type filter from v5)', async (v) => {
    const { call } = setup();
    await joinAndSync(call, 3);
    await call(K.OffsetCommit, 8, {
      groupId: 'old',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const all = await call(K.ListGroups, v, { statesFilter: [], typesFilter: [] });
    expect(all.groups.map((g: any) => g.groupId).sort()).toEqual(['g', 'old']);
    if (v >= 4) expect(all.groups.find((g: any) => g.groupId === 'old').groupState).toBe('Empty');
    const filtered = await call(K.ListGroups, v, { statesFilter: ['Stable'], typesFilter: [] });
    expect(filtered.groups.map((g: any) => g.groupId).sort()).toEqual(v >= 4 ? ['g'] : ['g', 'old']);
    if (v >= 5) {
      expect((await call(K.ListGroups, v, { statesFilter: [], typesFilter: ['consumer'] })).groups).toEqual([]);
      expect((await call(K.ListGroups, v, { statesFilter: [], typesFilter: ['classic'] })).groups).toHaveLength(2);
    }
  });

  it.each(range(0, 5))('DescribeGroups v%i', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 5);
    const r = await call(K.DescribeGroups, v, { groups: ['g', 'nope'], includeAuthorizedOperations: true });
    expect(r.groups[0]).toMatchObject({
      errorCode: 0,
      groupId: 'g',
      groupState: 'Stable',
      protocolType: 'consumer',
      protocolData: 'range',
    });
    expect(r.groups[0].members[0]).toMatchObject({ memberId, clientId: 'client', memberMetadata: subscription(['t']) });
    if (v >= 3) expect(r.groups[0].authorizedOperations).toBe((1 << 3) | (1 << 6) | (1 << 8));
    expect(r.groups[1]).toMatchObject({ errorCode: 0, groupId: 'nope', groupState: 'Dead', members: [] });
  });

  it.each([0, 1, 2])('DeleteGroups v%i', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 3);
    expect((await call(K.DeleteGroups, v, { groupsNames: ['g'] })).results).toEqual([
      { groupId: 'g', errorCode: ErrorCode.NON_EMPTY_GROUP },
    ]);
    await call(K.LeaveGroup, 1, { groupId: 'g', memberId });
    expect((await call(K.DeleteGroups, v, { groupsNames: ['g', 'nope'] })).results).toEqual([
      { groupId: 'g', errorCode: 0 },
      { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
  });
});
