// The classic group state machine's timers with a fake clock: session and rebalance timeouts,
// the KIP-394 pending member's, and group.initial.rebalance.delay.ms.
import { promised } from '../../src/storage/sync-adapter';
import { GroupCoordinator } from '../../src/groups/coordinator';
import { GroupState } from '../../src/groups/group-state';
import { silentLogger } from '../../src/logger';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { FakeTimers } from './fake-timers';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  flush,
  GROUP,
  harness,
  heartbeat,
  join,
  REBALANCE_MS,
  SESSION_MS,
  stableSingle,
  stablePair,
  sync,
} from './harness';

describe('timeouts', () => {
  it('a member that stops heartbeating is removed after its session timeout and the group rebalances', async () => {
    const { coord, timers } = harness();
    const { a, bId } = await stablePair(coord);
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
    const { a, bId } = await stablePair(coord);
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
