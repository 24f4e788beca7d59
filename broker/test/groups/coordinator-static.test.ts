// Static membership (KIP-345) in the classic group state machine, with a fake clock: a restarted
// instance takes over its member, fencing, rejoins, session timeouts and administrative removal.
import { GroupState } from '../../src/groups/group-state';
import { ErrorCode } from '../../src/protocol/error-codes';
import { assignmentOf, flush, GROUP, harness, heartbeat, join, SESSION_MS, subscription, sync } from './harness';

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
