// The KIP-848 heartbeat state machine: epochs, revocation before assignment, session and
// rebalance timeouts, leave, static members, regex subscriptions, fencing.
import { ErrorCode } from '../../../src/protocol/error-codes';
import { consumerHarness, GROUP, heartbeat, named, owned, SESSION_MS } from './consumer-harness';

function twoTopics() {
  const h = consumerHarness();
  h.storage.createTopic('a', 4, {});
  return h;
}

describe('ConsumerGroupHeartbeat', () => {
  it('gives a first member every partition at epoch 1 and the interval to heartbeat at', async () => {
    const h = twoTopics();
    const r = await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] });
    expect(r).toMatchObject({ errorCode: 0, memberId: 'm1', memberEpoch: 1, heartbeatIntervalMs: 5000 });
    expect(named(h, r)).toEqual(['a-0', 'a-1', 'a-2', 'a-3']);
    // Nothing changed: no assignment in an incremental answer.
    const again = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 });
    expect(again).toMatchObject({ errorCode: 0, memberEpoch: 1, assignment: null });
    expect(h.coord.group(GROUP)!.state()).toBe('Stable');
  });

  it('hands a partition to a new member only after its owner revoked it', async () => {
    const h = twoTopics();
    const r1 = await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const all = named(h, r1)!;
    // m2 joins: epoch 2, but its partitions are still m1's: it gets none yet.
    const r2 = await heartbeat(h, { memberId: 'm2', memberEpoch: 0, subscribedTopicNames: ['a'] });
    expect(r2).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect(named(h, r2)).toEqual([]);
    expect(h.coord.group(GROUP)!.state()).toBe('Reconciling');
    // m1 is asked to revoke two partitions and stays at epoch 1.
    const r3 = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, owned(all));
    expect(r3.memberEpoch).toBe(1);
    const kept = named(h, r3)!;
    expect(kept).toHaveLength(2);
    // m2 asks again before m1 revoked: still nothing.
    expect(named(h, await heartbeat(h, { memberId: 'm2', memberEpoch: 2 }, {}))).toBeNull();
    // m1 says it revoked: epoch 2.
    const r4 = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, owned(kept));
    expect(r4).toMatchObject({ errorCode: 0, memberEpoch: 2, assignment: null });
    // m2 now gets the two released partitions.
    const r5 = await heartbeat(h, { memberId: 'm2', memberEpoch: 2 }, {});
    expect(named(h, r5)).toEqual(all.filter((p) => !kept.includes(p)));
    expect(h.coord.group(GROUP)!.state()).toBe('Stable');
  });

  it("moves a member's partitions to the others when its session times out", async () => {
    const h = twoTopics();
    await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const r2 = await heartbeat(h, { memberId: 'm2', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const r1 = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, { a: [0, 1, 2, 3] });
    await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, owned(named(h, r1)!));
    await heartbeat(h, { memberId: 'm2', memberEpoch: r2.memberEpoch }, {});
    // m2 heartbeats on, m1 goes silent.
    for (let t = 5_000; t < SESSION_MS; t += 5_000) {
      h.timers.advance(5_000);
      expect((await heartbeat(h, { memberId: 'm2', memberEpoch: 2 })).memberEpoch).toBe(2);
    }
    expect(h.coord.group(GROUP)!.members.has('m1')).toBe(true);
    h.timers.advance(5_000);
    expect(h.coord.group(GROUP)!.members.has('m1')).toBe(false);
    const r = await heartbeat(h, { memberId: 'm2', memberEpoch: 2 });
    expect(r.memberEpoch).toBe(3);
    expect(named(h, r)).toEqual(['a-0', 'a-1', 'a-2', 'a-3']);
    // The expired member is told to rejoin.
    expect((await heartbeat(h, { memberId: 'm1', memberEpoch: 2 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('fences a member that does not revoke within its rebalance timeout', async () => {
    const h = twoTopics();
    await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'], rebalanceTimeoutMs: 10_000 });
    await heartbeat(h, { memberId: 'm2', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const r = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, { a: [0, 1, 2, 3] });
    expect(named(h, r)).toHaveLength(2);
    h.timers.advance(9_000);
    await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, { a: [0, 1, 2, 3] });
    expect(h.coord.group(GROUP)!.members.has('m1')).toBe(true);
    h.timers.advance(1_000);
    expect(h.coord.group(GROUP)!.members.has('m1')).toBe(false);
  });

  it('lets a member leave with epoch -1; its partitions go to the rest', async () => {
    const h = twoTopics();
    await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const r2 = await heartbeat(h, { memberId: 'm2', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const left = await heartbeat(h, { memberId: 'm1', memberEpoch: -1 });
    expect(left).toMatchObject({ errorCode: 0, memberId: 'm1', memberEpoch: -1 });
    const r = await heartbeat(h, { memberId: 'm2', memberEpoch: r2.memberEpoch }, {});
    expect(named(h, r)).toEqual(['a-0', 'a-1', 'a-2', 'a-3']);
    expect(r.memberEpoch).toBe(3);
  });

  it('fences epochs it does not know and forgives the previous one with a subset owned', async () => {
    const h = twoTopics();
    await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] });
    expect((await heartbeat(h, { memberId: 'm1', memberEpoch: 7 })).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    await heartbeat(h, { memberId: 'm2', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const r = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, { a: [0, 1, 2, 3] });
    await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, owned(named(h, r)!));
    // The answer with epoch 2 was "lost": epoch 1 with its current partitions is accepted.
    const lost = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 }, owned(named(h, r)!));
    expect(lost).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    // Epoch 0 from a known member is one more epoch to check (as Kafka 4.1 does): not its previous one.
    expect((await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] })).errorCode).toBe(
      ErrorCode.FENCED_MEMBER_EPOCH,
    );
    expect((await heartbeat(h, { memberId: 'nobody', memberEpoch: 3 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('refuses malformed requests as Kafka does', async () => {
    const h = twoTopics();
    const bad = async (req: Parameters<typeof heartbeat>[1]) => (await heartbeat(h, req)).errorCode;
    expect(await bad({ memberId: 'm', memberEpoch: 0 })).toBe(ErrorCode.INVALID_REQUEST); // no subscription
    expect(await bad({ memberId: 'm', memberEpoch: 0, subscribedTopicNames: ['a'], rebalanceTimeoutMs: -1 })).toBe(
      ErrorCode.INVALID_REQUEST,
    );
    expect(await bad({ memberId: 'm', memberEpoch: -3 })).toBe(ErrorCode.INVALID_REQUEST);
    expect(await bad({ memberId: 'm', memberEpoch: 0, subscribedTopicNames: ['a'], serverAssignor: 'sticky' })).toBe(
      ErrorCode.UNSUPPORTED_ASSIGNOR,
    );
    expect(await bad({ memberId: 'm', memberEpoch: 0, subscribedTopicRegex: 'a(?=b)' })).toBe(
      ErrorCode.INVALID_REGULAR_EXPRESSION,
    );
    expect(await bad({ memberId: 'm', memberEpoch: 0, subscribedTopicRegex: 'a[' })).toBe(
      ErrorCode.INVALID_REGULAR_EXPRESSION,
    );
  });

  it('keeps a static member that left with -2 and gives its partitions back to its next instance', async () => {
    const h = twoTopics();
    const s = { instanceId: 'i1', subscribedTopicNames: ['a'] };
    await heartbeat(h, { memberId: 'old', memberEpoch: 0, ...s });
    const r2 = await heartbeat(h, { memberId: 'm2', memberEpoch: 0, subscribedTopicNames: ['a'] });
    const r = await heartbeat(h, { memberId: 'old', memberEpoch: 1, instanceId: 'i1' }, { a: [0, 1, 2, 3] });
    const mine = named(h, r)!;
    await heartbeat(h, { memberId: 'old', memberEpoch: 1, instanceId: 'i1' }, owned(mine));
    await heartbeat(h, { memberId: 'm2', memberEpoch: r2.memberEpoch }, {});
    const epoch = h.coord.group(GROUP)!.groupEpoch;
    expect((await heartbeat(h, { memberId: 'old', memberEpoch: -2, instanceId: 'i1' })).memberEpoch).toBe(-2);
    // The next instance of i1 gets the same partitions, with no new group epoch.
    const back = await heartbeat(h, { memberId: 'new', memberEpoch: 0, ...s });
    expect(back.errorCode).toBe(0);
    expect(named(h, back)).toEqual(mine);
    expect(h.coord.group(GROUP)!.members.has('old')).toBe(false);
    expect(h.coord.group(GROUP)!.groupEpoch).toBe(epoch);
    // A second process with i1 while "new" holds it: UNRELEASED_INSTANCE_ID.
    expect((await heartbeat(h, { memberId: 'other', memberEpoch: 0, ...s })).errorCode).toBe(
      ErrorCode.UNRELEASED_INSTANCE_ID,
    );
    expect((await heartbeat(h, { memberId: 'other', memberEpoch: 3, instanceId: 'i1' })).errorCode).toBe(
      ErrorCode.FENCED_INSTANCE_ID,
    );
  });

  it('resolves a regex subscription and picks up a topic created later (new group epoch)', async () => {
    const h = twoTopics();
    h.storage.createTopic('orders-eu', 1, {});
    const r1 = await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicRegex: 'orders-.*' });
    expect(named(h, r1)).toEqual(['orders-eu-0']);
    h.storage.createTopic('orders-us', 2, {});
    h.storage.createTopic('xorders-us', 2, {}); // not a whole-name match
    const r2 = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 });
    expect(r2.memberEpoch).toBe(2);
    expect(named(h, r2)).toEqual(['orders-eu-0', 'orders-us-0', 'orders-us-1']);
  });

  it('picks up new partitions of a subscribed topic', async () => {
    const h = twoTopics();
    await heartbeat(h, { memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['a'] });
    h.storage.createPartitions('a', 6);
    const r = await heartbeat(h, { memberId: 'm1', memberEpoch: 1 });
    expect(r.memberEpoch).toBe(2);
    expect(named(h, r)).toHaveLength(6);
  });

  it('uses the assignor the members ask for', async () => {
    const h = consumerHarness();
    h.storage.createTopic('a', 3, {});
    h.storage.createTopic('b', 3, {});
    const s = { subscribedTopicNames: ['a', 'b'], serverAssignor: 'range' };
    await heartbeat(h, { memberId: 'm1', memberEpoch: 0, ...s });
    await heartbeat(h, { memberId: 'm2', memberEpoch: 0, ...s });
    const g = h.coord.group(GROUP)!;
    expect(g.assignorName).toBe('range');
    const target = (m: string) =>
      [...g.targetAssignment.get(m)!.entries()]
        .map(([t, ps]) => `${h.storage.topicById(t)!.name}:${[...ps].sort()}`)
        .sort();
    expect(target('m1')).toEqual(['a:0,1', 'b:0,1']);
    expect(target('m2')).toEqual(['a:2', 'b:2']);
  });
});
