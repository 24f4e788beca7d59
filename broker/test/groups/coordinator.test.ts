// The classic group state machine with a fake clock: join/sync/heartbeat/leave sequences, held
// responses, session and rebalance timeouts, generation fencing, protocol selection, KIP-394/KIP-345.
import { promised } from '../../src/storage/sync-adapter';
import { GroupCoordinator } from '../../src/groups/coordinator';
import { GroupState } from '../../src/groups/group-state';
import { silentLogger } from '../../src/logger';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { FakeTimers } from './fake-timers';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  assignmentOf,
  flush,
  GROUP,
  harness,
  heartbeat,
  join,
  REBALANCE_MS,
  SESSION_MS,
  stableSingle,
  subscription,
  sync,
} from './harness';

describe('join and sync', () => {
  it('a lone member joins, leads, assigns and becomes Stable', async () => {
    const { coord } = harness();
    const j = join(coord);
    await flush();
    const r = j.value!;
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.generationId).toBe(1);
    expect(r.leader).toBe(r.memberId);
    expect(r.memberId).toMatch(/^client-[0-9a-f-]{36}$/);
    expect(r.protocolName).toBe('range');
    expect(r.protocolType).toBe('consumer');
    expect(r.members).toEqual([{ memberId: r.memberId, groupInstanceId: null, metadata: subscription(['t']) }]);
    expect(coord.group(GROUP)!.state).toBe(GroupState.CompletingRebalance);

    const s = sync(coord, r.memberId, 1, [{ memberId: r.memberId, assignment: assignmentOf('t', [0, 1]) }]);
    await flush();
    expect(s.value).toEqual({
      errorCode: 0,
      protocolType: 'consumer',
      protocolName: 'range',
      assignment: assignmentOf('t', [0, 1]),
    });
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
    expect(heartbeat(coord, r.memberId, 1)).toBe(ErrorCode.NONE);
  });

  it('KIP-394: a v4+ new member first gets MEMBER_ID_REQUIRED and its id, then joins with it', async () => {
    const { coord } = harness();
    const first = join(coord, { requireKnownMemberId: true });
    await flush();
    expect(first.value!.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const memberId = first.value!.memberId;
    expect(memberId).not.toBe('');
    expect(coord.group(GROUP)!.pendingMembers.has(memberId)).toBe(true);
    expect(coord.group(GROUP)!.state).toBe(GroupState.Empty);

    const second = join(coord, { requireKnownMemberId: true, memberId });
    await flush();
    expect(second.value).toMatchObject({ errorCode: 0, memberId, leader: memberId, generationId: 1 });
    expect(coord.group(GROUP)!.pendingMembers.size).toBe(0);
  });

  it('a second member holds its JoinGroup until the first rejoins; the follower SyncGroup waits for the leader', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    await flush();
    expect(b.settled).toBe(false);
    expect(coord.group(GROUP)!.state).toBe(GroupState.PreparingRebalance);
    expect(heartbeat(coord, a.memberId, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);

    const a2 = join(coord, { memberId: a.memberId });
    await flush();
    expect(a2.value).toMatchObject({ errorCode: 0, generationId: 2, leader: a.memberId });
    expect(a2.value!.members.map((m) => m.memberId)).toEqual([a.memberId, b.value!.memberId]);
    expect(b.value).toMatchObject({ errorCode: 0, generationId: 2, leader: a.memberId, members: [] });

    const bId = b.value!.memberId;
    const bSync = sync(coord, bId, 2);
    await flush();
    expect(bSync.settled).toBe(false);
    expect(heartbeat(coord, bId, 2)).toBe(ErrorCode.NONE); // heartbeats are fine while CompletingRebalance
    const aSync = sync(coord, a.memberId, 2, [
      { memberId: a.memberId, assignment: assignmentOf('t', [0]) },
      { memberId: bId, assignment: assignmentOf('t', [1]) },
    ]);
    await flush();
    expect(aSync.value!.assignment).toEqual(assignmentOf('t', [0]));
    expect(bSync.value).toMatchObject({ errorCode: 0, assignment: assignmentOf('t', [1]) });
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
  });

  it('members the leader leaves out get an empty assignment; a Stable group answers SyncGroup at once', async () => {
    const { coord } = harness();
    const a = join(coord, { clientId: 'a' });
    await flush();
    const aId = a.value!.memberId;
    const b = join(coord, { clientId: 'b' });
    const a2 = join(coord, { memberId: aId });
    await flush();
    const bId = b.value!.memberId;
    const bSync = sync(coord, bId, 2);
    sync(coord, aId, 2, [{ memberId: aId, assignment: assignmentOf('t', [0, 1]) }]);
    await flush();
    expect(a2.value!.generationId).toBe(2);
    expect(bSync.value).toMatchObject({ errorCode: 0, assignment: Buffer.alloc(0) });
    const again = sync(coord, aId, 2);
    await flush();
    expect(again.value!.assignment).toEqual(assignmentOf('t', [0, 1]));
  });

  it('a rejoin in Stable with unchanged metadata returns the current generation without a rebalance', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bId = b.value!.memberId;
    sync(coord, bId, 2);
    sync(coord, a.memberId, 2, []);
    await flush();
    const again = join(coord, { memberId: bId });
    await flush();
    expect(again.value).toMatchObject({ errorCode: 0, generationId: 2, leader: a.memberId, members: [] });
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
    // The leader rejoining forces a rebalance (its subscription may have changed).
    const leaderAgain = join(coord, { memberId: a.memberId });
    await flush();
    expect(leaderAgain.settled).toBe(false);
    expect(coord.group(GROUP)!.state).toBe(GroupState.PreparingRebalance);
  });

  it('a member re-sending JoinGroup while one is held gets the old one answered', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const first = join(coord, { clientId: 'b', requireKnownMemberId: true });
    await flush();
    const bId = first.value!.memberId;
    const held = join(coord, { memberId: bId, requireKnownMemberId: true });
    await flush();
    expect(held.settled).toBe(false);
    const retry = join(coord, { memberId: bId, requireKnownMemberId: true });
    await flush();
    expect(held.value!.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(retry.settled).toBe(false);
    join(coord, { memberId: a.memberId });
    await flush();
    expect(retry.value).toMatchObject({ errorCode: 0, generationId: 2, memberId: bId });
  });
});

describe('timeouts', () => {
  it('a member that stops heartbeating is removed after its session timeout and the group rebalances', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bId = b.value!.memberId;
    sync(coord, bId, 2);
    sync(coord, a.memberId, 2, []);
    await flush();
    for (let t = 0; t < SESSION_MS + 3000; t += 3000) {
      timers.advance(3000);
      expect(heartbeat(coord, a.memberId, 2)).toBe(
        coord.group(GROUP)!.has(bId) ? ErrorCode.NONE : ErrorCode.REBALANCE_IN_PROGRESS,
      );
    }
    expect(coord.group(GROUP)!.has(bId)).toBe(false);
    expect(coord.group(GROUP)!.state).toBe(GroupState.PreparingRebalance);
    expect(heartbeat(coord, bId, 2)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const rejoin = join(coord, { memberId: a.memberId });
    await flush();
    expect(rejoin.value).toMatchObject({ errorCode: 0, generationId: 3, leader: a.memberId });
    expect(rejoin.value!.members).toHaveLength(1);
  });

  it('heartbeats keep a member alive past its session timeout', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    for (let i = 0; i < 10; i++) {
      timers.advance(SESSION_MS - 1);
      expect(heartbeat(coord, a.memberId, 1)).toBe(ErrorCode.NONE);
    }
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
  });

  it('the last member expiring empties the group and bumps the generation', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    timers.advance(SESSION_MS);
    const g = coord.group(GROUP)!;
    expect(g.state).toBe(GroupState.Empty);
    expect(g.generationId).toBe(2);
    expect(heartbeat(coord, a.memberId, 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('members that do not rejoin within the rebalance timeout are dropped from the new generation', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bId = b.value!.memberId;
    sync(coord, bId, 2);
    sync(coord, a.memberId, 2, []);
    await flush();
    const c = join(coord, { clientId: 'c' });
    const a3 = join(coord, { memberId: a.memberId });
    await flush();
    expect(a3.settled).toBe(false);
    // b keeps heartbeating (and is told to rejoin) but never does
    for (let t = 0; t < REBALANCE_MS - 3000; t += 3000) {
      timers.advance(3000);
      expect(heartbeat(coord, bId, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    }
    expect(a3.settled).toBe(false);
    timers.advance(3000);
    await flush();
    expect(a3.value).toMatchObject({ errorCode: 0, generationId: 3 });
    expect(a3.value!.members.map((m) => m.memberId).sort()).toEqual([a.memberId, c.value!.memberId].sort());
    expect(heartbeat(coord, bId, 2)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a member that never sends SyncGroup is removed after the rebalance timeout', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bId = b.value!.memberId;
    sync(coord, a.memberId, 2, []);
    await flush();
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
    for (let t = 0; t < REBALANCE_MS - 3000; t += 3000) {
      timers.advance(3000);
      expect(heartbeat(coord, a.memberId, 2)).toBe(ErrorCode.NONE);
      expect(heartbeat(coord, bId, 2)).toBe(ErrorCode.NONE);
    }
    timers.advance(3000);
    expect(coord.group(GROUP)!.has(bId)).toBe(false);
    expect(heartbeat(coord, a.memberId, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('a follower waiting for an assignment gets REBALANCE_IN_PROGRESS when the leader never syncs', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bSync = sync(coord, b.value!.memberId, 2);
    await flush();
    expect(bSync.settled).toBe(false);
    timers.advance(REBALANCE_MS);
    await flush();
    expect(bSync.value!.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(coord.group(GROUP)!.has(a.memberId)).toBe(false);
  });

  it('a MEMBER_ID_REQUIRED member that never comes back stops blocking the join after its session timeout', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    const pending = join(coord, { requireKnownMemberId: true, sessionTimeoutMs: 6000 });
    await flush();
    expect(pending.value!.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    // a rebalance for another reason: the pending member must rejoin too
    const b = join(coord, { clientId: 'b' });
    const a2 = join(coord, { memberId: a.memberId });
    await flush();
    expect(a2.settled).toBe(false);
    timers.advance(6000);
    await flush();
    expect(a2.value).toMatchObject({ errorCode: 0, generationId: 2 });
    expect(b.value!.errorCode).toBe(0);
  });

  it('group.initial.rebalance.delay.ms holds the first join and extends while members keep arriving', async () => {
    const { coord, timers } = harness({ initialRebalanceDelayMs: 3000 });
    const a = join(coord, { clientId: 'a' });
    await flush();
    timers.advance(2000);
    const b = join(coord, { clientId: 'b' });
    await flush();
    timers.advance(1000);
    await flush();
    expect(a.settled).toBe(false); // b arrived during the delay: another round
    timers.advance(3000);
    await flush();
    expect(a.value).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(a.value!.members).toHaveLength(2);
    expect(b.value).toMatchObject({ errorCode: 0, generationId: 1, leader: a.value!.memberId });
  });

  it("waits Kafka's 3000 ms by default, so a consumer starting a moment after the first shares its rebalance", async () => {
    const timers = new FakeTimers();
    const coord = new GroupCoordinator({
      storage: promised(new MemoryStorage()),
      logger: silentLogger,
      now: timers.now,
      timers,
    });
    const a = join(coord, { clientId: 'a' });
    await flush();
    timers.advance(1000);
    const b = join(coord, { clientId: 'b' });
    await flush();
    timers.advance(1999);
    await flush();
    expect(a.settled).toBe(false);
    timers.advance(1); // 3000 ms after the first join; b's arrival extends it by one more delay
    timers.advance(3000);
    await flush();
    expect(a.value).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(a.value!.members).toHaveLength(2);
    expect(b.value).toMatchObject({ errorCode: 0, generationId: 1 });
  });

  it('delays the rebalance of an Empty group that had generations, without extending it (Kafka: generation 0 only)', async () => {
    const { coord, timers } = harness({ initialRebalanceDelayMs: 3000 });
    const first = join(coord, { clientId: 'first' });
    await flush();
    timers.advance(3000);
    await flush();
    expect(first.value).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(
      coord.leaveGroup(GROUP, [{ memberId: first.value!.memberId, groupInstanceId: null }]).members[0]!.errorCode,
    ).toBe(ErrorCode.NONE);
    expect(coord.group(GROUP)!.generationId).toBe(2); // Empty now
    const a = join(coord, { clientId: 'a' });
    await flush();
    timers.advance(2000);
    const b = join(coord, { clientId: 'b' });
    await flush();
    timers.advance(999);
    await flush();
    expect(a.settled).toBe(false);
    timers.advance(1);
    await flush();
    expect(a.value).toMatchObject({ errorCode: 0, generationId: 3 });
    expect(b.value).toMatchObject({ errorCode: 0, generationId: 3 });
  });

  it('once Stable, only the member session timer is scheduled', async () => {
    const { coord, timers } = harness();
    await stableSingle(coord);
    expect(timers.pending).toBe(1); // the member's session timer
  });
});

describe('fencing', () => {
  it('answers stale and unknown members with ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / REBALANCE_IN_PROGRESS', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    expect(heartbeat(coord, a.memberId, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(heartbeat(coord, 'nobody', 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coord.heartbeat({ groupId: 'other', generationId: 1, memberId: a.memberId, groupInstanceId: null })).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
    const s = sync(coord, a.memberId, 7);
    await flush();
    expect(s.value!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const s2 = sync(coord, a.memberId, 1, [], { protocolName: 'roundrobin' });
    await flush();
    expect(s2.value!.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const unknownJoin = join(coord, { memberId: 'ghost' });
    await flush();
    expect(unknownJoin.value).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: 'ghost' });

    join(coord, { clientId: 'b' });
    await flush();
    const duringRebalance = sync(coord, a.memberId, 1);
    await flush();
    expect(duringRebalance.value!.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('rejects bad group ids and session timeouts outside the broker bounds', async () => {
    const { coord } = harness();
    const bad = join(coord, { groupId: '' });
    const short = join(coord, { sessionTimeoutMs: 5999 });
    const long = join(coord, { sessionTimeoutMs: 1_800_001 });
    await flush();
    expect(bad.value!.errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect(short.value!.errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(long.value!.errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(coord.group(GROUP)).toBeUndefined();
  });
});

describe('protocol selection', () => {
  const proto = (...names: string[]) => names.map((name) => ({ name, metadata: subscription(['t']) }));

  it('picks, among protocols every member supports, the one most members prefer', async () => {
    const { coord } = harness();
    const a = join(coord, { clientId: 'a', protocols: proto('roundrobin', 'range', 'sticky') });
    await flush();
    const aId = a.value!.memberId;
    expect(a.value!.protocolName).toBe('roundrobin');
    const b = join(coord, { clientId: 'b', protocols: proto('range', 'roundrobin') });
    const c = join(coord, { clientId: 'c', protocols: proto('range', 'roundrobin', 'sticky') });
    const a2 = join(coord, { memberId: aId, protocols: proto('roundrobin', 'range', 'sticky') });
    await flush();
    // candidates {roundrobin, range}; votes: a roundrobin, b range, c range
    for (const r of [a2, b, c]) expect(r.value).toMatchObject({ errorCode: 0, generationId: 2, protocolName: 'range' });
    expect(a2.value!.members.find((m) => m.memberId === aId)!.metadata).toEqual(subscription(['t']));
  });

  it('breaks a tie by the longest-standing member preference', async () => {
    const { coord } = harness();
    const a = join(coord, { clientId: 'a', protocols: proto('roundrobin', 'range') });
    await flush();
    const b = join(coord, { clientId: 'b', protocols: proto('range', 'roundrobin') });
    join(coord, { memberId: a.value!.memberId, protocols: proto('roundrobin', 'range') });
    await flush();
    expect(b.value!.protocolName).toBe('roundrobin');
  });

  it('refuses a member that shares no protocol or protocol type with the group (INCONSISTENT_GROUP_PROTOCOL)', async () => {
    const { coord } = harness();
    await stableSingle(coord);
    const other = join(coord, { protocols: proto('roundrobin') });
    const otherType = join(coord, { protocolType: 'connect' });
    const none = join(coord, { groupId: 'fresh', protocols: [] });
    await flush();
    expect(other.value!.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(otherType.value!.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(none.value!.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
  });
});

describe('LeaveGroup', () => {
  it('the last member leaving empties the group with a new generation', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const r = coord.leaveGroup(GROUP, [{ memberId: a.memberId, groupInstanceId: null }]);
    expect(r).toEqual({ errorCode: 0, members: [{ memberId: a.memberId, groupInstanceId: null, errorCode: 0 }] });
    expect(coord.group(GROUP)!.state).toBe(GroupState.Empty);
    expect(coord.group(GROUP)!.generationId).toBe(2);
  });

  it('the leader leaving hands leadership to the member that rejoins', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bId = b.value!.memberId;
    sync(coord, bId, 2);
    sync(coord, a.memberId, 2, []);
    await flush();
    coord.leaveGroup(GROUP, [{ memberId: a.memberId, groupInstanceId: null }]);
    expect(heartbeat(coord, bId, 2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const b2 = join(coord, { memberId: bId });
    await flush();
    expect(b2.value).toMatchObject({ errorCode: 0, generationId: 3, leader: bId });
  });

  it('a held JoinGroup of a member that leaves is answered UNKNOWN_MEMBER_ID; unknown members get UNKNOWN_MEMBER_ID', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    await flush();
    const bId =
      coord.group(GROUP)!.members.keys().next().value === a.memberId ? [...coord.group(GROUP)!.members.keys()][1]! : '';
    const r = coord.leaveGroup(GROUP, [
      { memberId: bId, groupInstanceId: null },
      { memberId: 'ghost', groupInstanceId: null },
      { memberId: '', groupInstanceId: 'nobody' },
    ]);
    await flush();
    expect(r.members.map((m) => m.errorCode)).toEqual([0, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(b.value!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coord.leaveGroup('no-such-group', [{ memberId: 'x', groupInstanceId: null }]).members[0]!.errorCode).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
  });
});

describe('static membership (KIP-345)', () => {
  it('a restarted instance takes over its member without a rebalance and fences the old id', async () => {
    const { coord } = harness();
    const a = join(coord, { groupInstanceId: 'instance-a', requireKnownMemberId: true });
    await flush();
    // static members skip MEMBER_ID_REQUIRED
    expect(a.value).toMatchObject({ errorCode: 0, generationId: 1 });
    const oldId = a.value!.memberId;
    expect(oldId).toMatch(/^instance-a-/);
    sync(coord, oldId, 1, [{ memberId: oldId, assignment: assignmentOf('t', [0]) }], { groupInstanceId: 'instance-a' });
    await flush();

    const again = join(coord, { groupInstanceId: 'instance-a' });
    await flush();
    const newId = again.value!.memberId;
    expect(newId).not.toBe(oldId);
    // The old leader id is returned so the new member does not run an assignment.
    expect(again.value).toMatchObject({ errorCode: 0, generationId: 1, leader: oldId, members: [] });
    expect(coord.group(GROUP)!.state).toBe(GroupState.Stable);
    expect(heartbeat(coord, oldId, 1, 'instance-a')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(heartbeat(coord, newId, 1, 'instance-a')).toBe(ErrorCode.NONE);
    const s = sync(coord, newId, 1, [], { groupInstanceId: 'instance-a' });
    await flush();
    expect(s.value!.assignment).toEqual(assignmentOf('t', [0])); // the assignment carried over
    const fencedCommit = await coord.commitOffsets({
      groupId: GROUP,
      generationId: 1,
      memberId: oldId,
      groupInstanceId: 'instance-a',
      offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }],
    });
    expect(fencedCommit).toEqual([ErrorCode.FENCED_INSTANCE_ID]);
    const fencedJoin = join(coord, { memberId: oldId, groupInstanceId: 'instance-a' });
    await flush();
    expect(fencedJoin.value!.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it('a static member rejoining with a different protocol triggers a rebalance', async () => {
    const { coord } = harness();
    const a = join(coord, {
      groupInstanceId: 'i',
      protocols: [
        { name: 'range', metadata: subscription(['t']) },
        { name: 'roundrobin', metadata: subscription(['t']) },
      ],
    });
    await flush();
    sync(coord, a.value!.memberId, 1, [], { groupInstanceId: 'i' });
    await flush();
    const again = join(coord, {
      groupInstanceId: 'i',
      protocols: [{ name: 'roundrobin', metadata: subscription(['t']) }],
    });
    await flush();
    expect(again.value).toMatchObject({ errorCode: 0, generationId: 2, protocolName: 'roundrobin' });
  });

  it('a static member that does not rejoin keeps its place through the rebalance, and leaves by session timeout', async () => {
    const { coord, timers } = harness();
    const s = join(coord, { groupInstanceId: 'static' });
    await flush();
    const sId = s.value!.memberId;
    sync(coord, sId, 1, [], { groupInstanceId: 'static' });
    await flush();
    const d = join(coord, { clientId: 'dynamic' });
    await flush();
    timers.advance(SESSION_MS - 1000);
    heartbeat(coord, sId, 1, 'static');
    timers.advance(1000);
    await flush();
    // the rebalance has not completed: the static member is still expected
    expect(d.settled).toBe(false);
    timers.advance(SESSION_MS);
    await flush();
    // its session expired: removed, and the join completes without it
    expect(d.value).toMatchObject({ errorCode: 0, generationId: 2 });
    expect(d.value!.members).toHaveLength(1);
    expect(coord.group(GROUP)!.staticMemberId('static')).toBeUndefined();
  });

  it('LeaveGroup by group.instance.id removes the static member (administrative removal)', async () => {
    const { coord } = harness();
    const s = join(coord, { groupInstanceId: 'static' });
    await flush();
    const r = coord.leaveGroup(GROUP, [{ memberId: '', groupInstanceId: 'static' }]);
    expect(r.members[0]!.errorCode).toBe(0);
    expect(coord.group(GROUP)!.has(s.value!.memberId)).toBe(false);
    const wrong = coord.leaveGroup(GROUP, [{ memberId: 'x', groupInstanceId: 'nobody' }]);
    expect(wrong.members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe('close()', () => {
  it('answers held requests with NOT_COORDINATOR, clears every timer and refuses new work', async () => {
    const { coord, timers } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    const pending = join(coord, { groupId: 'other', requireKnownMemberId: true });
    await flush();
    expect(b.settled).toBe(false);
    coord.close();
    await flush();
    expect(b.value!.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(pending.value!.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(timers.pending).toBe(0);
    expect(heartbeat(coord, a.memberId, 1)).toBe(ErrorCode.NOT_COORDINATOR);
    const late = join(coord);
    await flush();
    expect(late.value!.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('answers a held SyncGroup too', async () => {
    const { coord } = harness();
    const a = await stableSingle(coord);
    const b = join(coord, { clientId: 'b' });
    join(coord, { memberId: a.memberId });
    await flush();
    const bSync = sync(coord, b.value!.memberId, 2);
    await flush();
    coord.close();
    await flush();
    expect(bSync.value!.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });
});
