// The classic group state machine with a fake clock: join/sync/heartbeat/leave sequences, held
// responses, generation fencing, protocol selection, close(). Timeouts are
// coordinator-timeouts.test.ts, static membership (KIP-345) coordinator-static.test.ts.
import { GroupState } from '../../src/groups/group-state';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  assignmentOf,
  flush,
  GROUP,
  harness,
  heartbeat,
  join,
  stableSingle,
  stablePair,
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
    const { a, bId } = await stablePair(coord);
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
    const { a, bId } = await stablePair(coord);
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
