// Online conversion between classic and consumer groups (KIP-848 "upgrade/downgrade", Kafka's
// GroupMetadataManager): a ConsumerGroupHeartbeat joining a classic group of consumers upgrades
// it, its members carrying on inside it over JoinGroup/SyncGroup/Heartbeat with the server-side
// assignment; the last consumer-protocol member leaving, or replaced by a classic static member,
// downgrades it back; the policy and
// group.consumer.max.size are honoured; a mixed group survives a restart.
import { GroupCoordinator } from '../../../src/groups/coordinator';
import type { MigrationPolicy } from '../../../src/groups/consumer/group-conversion';
import { silentLogger } from '../../../src/logger';
import { consumerAssignment, encodeAssignment, encodeSubscription } from '../../../src/protocol/consumer-protocol';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { MemoryStorage } from '../../../src/storage/memory/memory-storage';
import { promised } from '../../../src/storage/sync-adapter';
import { FakeTimers } from '../fake-timers';
import { GROUP, heartbeatInput } from './consumer-harness';

const PROTOCOL = 'cooperative-sticky';

function broker(storage: MemoryStorage, consumer: { migrationPolicy?: MigrationPolicy; maxSize?: number } = {}) {
  const timers = new FakeTimers();
  const groups = new GroupCoordinator({
    storage: promised(storage),
    logger: silentLogger,
    now: timers.now,
    timers,
    initialRebalanceDelayMs: 100,
    consumer: { topicsRefreshMs: 0, ...consumer },
  });
  const hb = (memberId: string, memberEpoch: number, owned: number[] | null) =>
    groups.consumer.heartbeat(
      heartbeatInput(
        GROUP,
        memberId,
        memberEpoch,
        () => storage.topic('t')!.topicId,
        owned,
        memberEpoch === 0 ? ['t'] : null,
      ),
    );
  const join = (
    memberId: string,
    owned: number[],
    protocolType = 'consumer',
    opts: { instanceId?: string; topics?: string[] } = {},
  ) =>
    groups.joinGroup({
      groupId: GROUP,
      memberId,
      groupInstanceId: opts.instanceId ?? null,
      requireKnownMemberId: false,
      clientId: 'classic',
      clientHost: '/127.0.0.1',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 30_000,
      protocolType,
      protocols: [
        {
          name: PROTOCOL,
          metadata: encodeSubscription(
            { topics: opts.topics ?? ['t'], ownedPartitions: [{ topic: 't', partitions: owned }] },
            1,
          ),
        },
      ],
    });
  const sync = async (
    memberId: string,
    generationId: number,
    assignments: { memberId: string; assignment: Buffer }[] = [],
  ) => {
    const r = await groups.syncGroup({
      groupId: GROUP,
      generationId,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: PROTOCOL,
      assignments,
    });
    return {
      errorCode: r.errorCode,
      partitions: consumerAssignment(r.assignment)?.assignedPartitions[0]?.partitions ?? [],
    };
  };
  const beat = (memberId: string, generationId: number) =>
    groups.heartbeat({ groupId: GROUP, generationId, memberId, groupInstanceId: null });
  return { groups, timers, hb, join, sync, beat };
}

const assignment = (partitions: number[]) => encodeAssignment({ assignedPartitions: [{ topic: 't', partitions }] }, 1);

/** A Stable classic group: A owns 0,1 and B owns 2,3 of topic t at generation 1. */
async function classicGroup(b: ReturnType<typeof broker>) {
  const [ja, jb] = [b.join('', []), b.join('', [])];
  b.timers.advance(300); // the initial delay, extended once for the second member
  const [a, bb] = await Promise.all([ja, jb]);
  const leader = a.members.length > 0 ? a : bb;
  const [A, B] = [a.memberId, bb.memberId];
  const assignments = [
    { memberId: A, assignment: assignment([0, 1]) },
    { memberId: B, assignment: assignment([2, 3]) },
  ];
  await Promise.all([b.sync(A, 1, leader === a ? assignments : []), b.sync(B, 1, leader === bb ? assignments : [])]);
  expect(b.groups.group(GROUP)?.state).toBe('Stable');
  return { A, B };
}

function setUp(consumer: { migrationPolicy?: MigrationPolicy; maxSize?: number } = {}) {
  const storage = new MemoryStorage();
  storage.createTopic('t', 4, {});
  return { storage, b: broker(storage, consumer) };
}

it('upgrades a classic group when a consumer-protocol member joins; its members reconcile over JoinGroup', async () => {
  const { storage, b } = setUp();
  const { A, B } = await classicGroup(b);
  const c = await b.hb('C', 0, []);
  expect(c).toMatchObject({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: { topicPartitions: [] } });
  expect(b.groups.group(GROUP)).toBeUndefined();
  const cg = b.groups.consumer.group(GROUP)!;
  expect(cg.classicMemberCount).toBe(2);
  // Classic members keep consuming at generation 1 until told to rejoin.
  expect(await b.beat(A, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  expect(await b.beat(B, 7)).toBe(ErrorCode.ILLEGAL_GENERATION);
  // A classic member whose target lost a partition (the assignor's choice: at least one did)
  // rejoins owning its two, cooperatively: it must give one up first, keeping generation 1.
  const tid = storage.topic('t')!.topicId;
  const [giver, other] = cg.targetAssignment.get(A)!.get(tid)!.size === 1 ? [A, B] : [B, A];
  const owned = (m: string) => (m === A ? [0, 1] : [2, 3]);
  const a1 = await b.join(giver, owned(giver));
  expect(a1).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, protocolName: PROTOCOL, leader: '' });
  const kept = (await b.sync(giver, 1)).partitions;
  expect(kept).toHaveLength(1);
  expect(await b.beat(giver, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  const a2 = await b.join(giver, kept);
  expect(a2.generationId).toBe(2);
  expect(await b.sync(giver, 2)).toEqual({ errorCode: ErrorCode.NONE, partitions: kept });
  expect(await b.beat(giver, 2)).toBe(ErrorCode.NONE);
  // The other one (eager: it owns nothing when it rejoins) moves to generation 2 at once.
  const b1 = await b.join(other, []);
  expect(b1.generationId).toBe(2);
  const keptB = (await b.sync(other, 2)).partitions;
  expect(keptB.every((p) => owned(other).includes(p))).toBe(true);
  // The released partitions reach C; nobody holds a partition twice.
  const c2 = await b.hb('C', 2, []);
  const cParts = c2.assignment!.topicPartitions[0]!.partitions;
  expect([...kept, ...keptB, ...cParts].sort()).toEqual([0, 1, 2, 3]);
  expect(cg.state()).toBe('Stable');
  // A classic member commits with its generation (the member epoch).
  const commit = (gen: number) =>
    b.groups.commitOffsets({
      groupId: GROUP,
      generationId: gen,
      memberId: giver,
      groupInstanceId: null,
      apiVersion: 8,
      offsets: [{ topic: 't', partition: kept[0]!, offset: 5, leaderEpoch: -1, metadata: null }],
    });
  expect(await commit(1)).toEqual([ErrorCode.ILLEGAL_GENERATION]);
  expect(await commit(2)).toEqual([ErrorCode.NONE]);
  b.groups.close();
  void storage;
});

it('downgrades back to a classic group when the last consumer-protocol member leaves', async () => {
  const { storage, b } = setUp();
  const { A, B } = await classicGroup(b);
  await b.hb('C', 0, []);
  expect((await b.hb('C', -1, null)).errorCode).toBe(ErrorCode.NONE);
  expect(b.groups.consumer.group(GROUP)).toBeUndefined();
  const g = b.groups.group(GROUP)!;
  expect({ state: g.state, members: [...g.members.keys()].sort(), type: g.protocolType }).toEqual({
    state: 'PreparingRebalance',
    members: [A, B].sort(),
    type: 'consumer',
  });
  // The classic members are told to rejoin, and a normal classic rebalance follows.
  expect(await b.beat(A, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  const [ja, jb] = await Promise.all([b.join(A, [0, 1]), b.join(B, [2, 3])]);
  expect(ja.generationId).toBe(3);
  expect([ja, jb].filter((r) => r.members.length === 2)).toHaveLength(1);
  await b.groups.writesSettled();
  expect(storage.groupMetadata(GROUP)).toMatchObject({ protocolType: 'consumer', protocolName: PROTOCOL });
  b.groups.close();
});

describe('a classic static member replacing the last consumer-protocol member (Kafka 4.1.1)', () => {
  /** The classic group A, B upgraded by consumer-protocol static member C (instance "c-inst"). */
  async function upgradedByStatic(consumer: { migrationPolicy?: MigrationPolicy } = {}) {
    const { storage, b } = setUp(consumer);
    const { A, B } = await classicGroup(b);
    const c = await b.groups.consumer.heartbeat({
      ...heartbeatInput(GROUP, 'C', 0, () => '', [], ['t']),
      instanceId: 'c-inst',
    });
    expect(c.errorCode).toBe(ErrorCode.NONE);
    expect(b.groups.consumer.group(GROUP)?.size).toBe(3);
    return { storage, b, A, B };
  }

  it("downgrades the group to classic, Stable when the subscription is the same, the new member holding C's target", async () => {
    const { b, A, B } = await upgradedByStatic();
    const target = [...(b.groups.consumer.group(GROUP)!.targetAssignment.get('C')?.values() ?? [])].flatMap((s) => [
      ...s,
    ]);
    const joined = await b.join('', [], 'consumer', { instanceId: 'c-inst' });
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    expect(b.groups.consumer.group(GROUP)).toBeUndefined();
    const g = b.groups.group(GROUP)!;
    expect({ state: g.state, members: [...g.members.keys()].sort() }).toEqual({
      state: 'Stable',
      members: [A, B, joined.memberId].sort(),
    });
    expect(joined.generationId).toBe(g.generationId);
    const synced = await b.groups.syncGroup({
      groupId: GROUP,
      generationId: joined.generationId,
      memberId: joined.memberId,
      groupInstanceId: 'c-inst',
      protocolType: 'consumer',
      protocolName: PROTOCOL,
      assignments: [],
    });
    expect(synced.errorCode).toBe(ErrorCode.NONE);
    expect(consumerAssignment(synced.assignment)?.assignedPartitions.flatMap((tp) => tp.partitions) ?? []).toEqual(
      target.sort((x, y) => x - y),
    );
    b.groups.close();
  });

  it('rebalances the classic group when the new member subscribes differently', async () => {
    const { storage, b } = await upgradedByStatic();
    storage.createTopic('u', 1, {});
    await b.join('', [], 'consumer', { instanceId: 'c-inst', topics: ['t', 'u'] });
    expect(b.groups.consumer.group(GROUP)).toBeUndefined();
    expect(b.groups.group(GROUP)?.state).toBe('PreparingRebalance');
    b.groups.close();
  });

  it('stays a consumer group when the policy does not allow the downgrade', async () => {
    const { b } = await upgradedByStatic({ migrationPolicy: 'upgrade' });
    expect((await b.join('', [], 'consumer', { instanceId: 'c-inst' })).errorCode).toBe(ErrorCode.NONE);
    expect(b.groups.consumer.group(GROUP)?.size).toBe(3);
    b.groups.close();
  });
});

it('keeps a consumer group with classic members when the policy does not allow the downgrade', async () => {
  const { b } = setUp({ migrationPolicy: 'upgrade' });
  const { A } = await classicGroup(b);
  await b.hb('C', 0, []);
  await b.hb('C', -1, null);
  expect(b.groups.consumer.group(GROUP)?.size).toBe(2);
  expect(await b.beat(A, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  b.groups.close();
});

it.each([['disabled'], ['downgrade']] as const)('refuses the upgrade with policy %s', async (policy) => {
  const { b } = setUp({ migrationPolicy: policy });
  await classicGroup(b);
  expect(await b.hb('C', 0, [])).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
  expect(b.groups.group(GROUP)?.state).toBe('Stable');
  b.groups.close();
});

it('refuses the upgrade of a classic group of another protocol type', async () => {
  const { b } = setUp();
  const j = b.join('', [], 'connect');
  b.timers.advance(300); // the initial delay, extended once for the second member
  expect((await j).errorCode).toBe(ErrorCode.NONE);
  expect(await b.hb('C', 0, [])).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
  b.groups.close();
});

it('group.consumer.max.size: the member beyond it is refused, classic or consumer protocol', async () => {
  const { b } = setUp({ maxSize: 2 });
  await classicGroup(b);
  // Converting would make three members: refused before anything changes.
  expect(await b.hb('C', 0, [])).toMatchObject({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED });
  expect(b.groups.group(GROUP)?.state).toBe('Stable');
  b.groups.close();
  const other = setUp({ maxSize: 2 });
  await other.b.hb('C', 0, []);
  expect((await other.b.join('', [])).errorCode).toBe(ErrorCode.NONE);
  expect((await other.b.join('', [])).errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
  expect(await other.b.hb('D', 0, [])).toMatchObject({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED });
  other.b.groups.close();
});

it('a mixed group survives a restart: classic members carry on with their generation', async () => {
  const { storage, b } = setUp();
  const { A } = await classicGroup(b);
  await b.hb('C', 0, []);
  const kept = (await b.join(A, [])).generationId;
  expect(kept).toBe(2);
  await b.groups.writesSettled();
  b.groups.close();
  const again = broker(storage);
  expect(await again.groups.loadGroup(GROUP)).toBe(ErrorCode.NONE);
  expect(again.groups.consumer.group(GROUP)?.classicMemberCount).toBe(2);
  expect((await again.sync(A, 2)).errorCode).toBe(ErrorCode.NONE);
  // C leaving after the restart still downgrades it.
  await again.hb('C', -1, null);
  expect(again.groups.group(GROUP)?.size).toBe(2);
  again.groups.close();
});
