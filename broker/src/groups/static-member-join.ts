// KIP-345 static membership: a member with a group.instance.id rejoining without its member id
// takes over its old place (fencing the old id) and, in a Stable group, needs no rebalance.
import { ErrorCode } from '../protocol/error-codes';
import type { Group, JoinResult } from './group';
import { GroupState } from './group-state';
import type { JoinGroupInput } from './coordinator-options';
import { GroupRebalance, updateMember } from './rebalance';

export abstract class StaticMemberJoin extends GroupRebalance {
  /** KIP-345: a static member (re)joining without a member id. */
  protected joinStaticMember(
    group: Group,
    req: JoinGroupInput,
    newMemberId: string,
    respond: (r: JoinResult) => void,
  ): void {
    const instanceId = req.groupInstanceId!;
    const oldMemberId = group.staticMemberId(instanceId);
    if (oldMemberId === undefined) return this.addMemberAndRebalance(group, req, newMemberId, respond);
    const leaderBefore = group.leaderId ?? '';
    const old = group.get(oldMemberId)!;
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    this.logger.info('static member rejoined with a new member id; fencing the old one', {
      groupId: group.groupId,
      groupInstanceId: instanceId,
      oldMemberId,
      newMemberId,
      state: group.state,
    });
    this.fence(old, ErrorCode.FENCED_INSTANCE_ID);
    updateMember(member, req);
    this.scheduleHeartbeat(group, member);
    switch (group.state) {
      case GroupState.Stable:
        if (group.selectProtocol() === group.protocolName) {
          // Nothing the assignment depends on changed: no rebalance. The old leader id is returned so
          // a replaced leader does not run an assignment a Stable group would never distribute.
          this.persist(group);
          return respond({ ...this.currentJoinResult(group, member, false), leader: leaderBefore });
        }
        this.setJoinWaiter(member, respond);
        return this.prepareRebalance(group, `static member ${instanceId} rejoined with a different protocol`);
      case GroupState.CompletingRebalance:
        this.setJoinWaiter(member, respond);
        return this.prepareRebalance(group, `static member ${instanceId} rejoined during CompletingRebalance`);
      default:
        // PreparingRebalance: wait with everyone else.
        this.setJoinWaiter(member, respond);
    }
  }
}
