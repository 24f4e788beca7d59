// The rebalance state machine of the classic group coordinator (Kafka's GroupCoordinator.scala):
// members joining, the join phase (initial delay, rebalance timeout), the sync phase and member
// removal. Timers and held requests are group-sessions.ts; the request entry points coordinator.ts.
import { ErrorCode } from '../protocol/error-codes';
import { Group, JoinResult, Member, syncError } from './group';
import { GroupState } from './group-state';
import type { JoinGroupInput } from './coordinator-options';
import { GroupSessions } from './group-sessions';

export abstract class GroupRebalance extends GroupSessions {
  protected addMemberAndRebalance(
    group: Group,
    req: JoinGroupInput,
    memberId: string,
    respond: (r: JoinResult) => void,
  ): void {
    const member = new Member(
      memberId,
      req.groupInstanceId,
      req.clientId,
      req.clientHost,
      req.rebalanceTimeoutMs,
      req.sessionTimeoutMs,
      req.protocolType,
      req.protocols,
    );
    // Kafka extends the initial delay only for a group that never had a generation (GroupCoordinator
    // addMemberAndRebalance: `group.is(PreparingRebalance) && group.generationId == 0`).
    if (group.initialDelay && group.generationId === 0) group.initialDelay.newMemberAdded = true;
    group.add(member);
    member.joinWaiter = respond;
    // A new member cannot heartbeat before its first JoinGroup response; it is dropped only if that
    // takes longer than newMemberJoinTimeoutMs (Kafka's NewMemberJoinTimeoutMs).
    this.scheduleHeartbeat(group, member, this.newMemberJoinTimeoutMs);
    this.logger.debug('member joined', {
      groupId: group.groupId,
      memberId,
      groupInstanceId: req.groupInstanceId,
      clientId: req.clientId,
    });
    this.maybePrepareRebalance(group, `member ${memberId} joined${req.reason ? ` (${req.reason})` : ''}`);
  }

  protected updateMemberAndRebalance(
    group: Group,
    member: Member,
    req: JoinGroupInput,
    respond: (r: JoinResult) => void,
    reason: string,
  ): void {
    updateMember(member, req);
    this.setJoinWaiter(member, respond);
    this.maybePrepareRebalance(group, reason);
  }

  protected currentJoinResult(group: Group, member: Member, includeMembers: boolean): JoinResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      memberId: member.memberId,
      skipAssignment: false,
      members: includeMembers ? group.currentMemberMetadata() : [],
    };
  }

  protected maybePrepareRebalance(group: Group, reason: string): void {
    if (group.is(GroupState.Stable) || group.is(GroupState.CompletingRebalance) || group.is(GroupState.Empty))
      this.prepareRebalance(group, reason);
  }

  protected prepareRebalance(group: Group, reason: string): void {
    // Followers waiting for an assignment that will never come get REBALANCE_IN_PROGRESS and rejoin.
    if (group.is(GroupState.CompletingRebalance)) this.resetAssignments(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.clearTimer(group, 'syncTimer');
    group.pendingSync.clear();
    const wasEmpty = group.is(GroupState.Empty);
    group.transitionTo(GroupState.PreparingRebalance);
    this.logger.info('preparing to rebalance group', {
      groupId: group.groupId,
      generationId: group.generationId,
      members: group.size,
      reason,
    });
    this.clearTimer(group, 'joinTimer');
    if (wasEmpty && this.initialRebalanceDelayMs > 0) {
      group.initialDelay = {
        remainingMs: Math.max(group.rebalanceTimeoutMs - this.initialRebalanceDelayMs, 0),
        newMemberAdded: false,
      };
      group.joinTimer = this.timers.setTimeout(() => this.onInitialDelayExpired(group), this.initialRebalanceDelayMs);
    } else {
      group.joinTimer = this.timers.setTimeout(() => this.onJoinTimeout(group), group.rebalanceTimeoutMs);
      this.maybeCompleteJoin(group);
    }
  }

  /** Kafka's InitialDelayedJoin: keep waiting while new members keep arriving, up to the rebalance timeout. */
  protected onInitialDelayExpired(group: Group): void {
    group.joinTimer = null;
    const delay = group.initialDelay;
    if (!delay || !group.is(GroupState.PreparingRebalance)) return;
    if (delay.newMemberAdded && delay.remainingMs > 0) {
      const next = Math.min(this.initialRebalanceDelayMs, delay.remainingMs);
      group.initialDelay = { remainingMs: delay.remainingMs - next, newMemberAdded: false };
      group.joinTimer = this.timers.setTimeout(() => this.onInitialDelayExpired(group), next);
      return;
    }
    this.completeJoin(group);
  }

  protected onJoinTimeout(group: Group): void {
    group.joinTimer = null;
    if (group.is(GroupState.PreparingRebalance)) this.completeJoin(group);
  }

  protected maybeCompleteJoin(group: Group): void {
    if (group.is(GroupState.PreparingRebalance) && group.initialDelay === null && group.hasAllMembersJoined)
      this.completeJoin(group);
  }

  /** The join phase ends: everyone rejoined, or the rebalance timeout passed. */
  protected completeJoin(group: Group): void {
    this.clearTimer(group, 'joinTimer');
    group.initialDelay = null;
    // Dynamic members that did not rejoin in time are gone; static ones keep their place (KIP-345).
    for (const m of [...group.members.values()]) {
      if (!m.isAwaitingJoin && !m.isStatic) {
        this.logger.info('member did not rejoin in time; removing it', {
          groupId: group.groupId,
          memberId: m.memberId,
        });
        this.fence(m, ErrorCode.UNKNOWN_MEMBER_ID);
        group.remove(m.memberId);
      }
    }
    if (group.size > 0 && !electJoinedLeader(group)) {
      // Only static members that have not rejoined remain: wait another round (their session
      // timeouts remove them if they are really gone).
      group.joinTimer = this.timers.setTimeout(() => this.onJoinTimeout(group), group.rebalanceTimeoutMs);
      return;
    }
    group.generationId += 1;
    if (group.size === 0) {
      group.protocolName = null;
      group.transitionTo(GroupState.Empty);
      this.persist(group);
      this.logger.info('group is now empty', { groupId: group.groupId, generationId: group.generationId });
      return;
    }
    group.protocolName = group.selectProtocol();
    group.transitionTo(GroupState.CompletingRebalance);
    this.logger.info('group joined; waiting for the leader to assign', {
      groupId: group.groupId,
      generationId: group.generationId,
      protocolName: group.protocolName,
      leader: group.leaderId,
      members: group.size,
    });
    for (const m of group.members.values()) {
      group.pendingSync.add(m.memberId);
      const waiter = m.joinWaiter;
      m.joinWaiter = null;
      waiter?.(this.currentJoinResult(group, m, group.isLeader(m.memberId)));
      m.isNew = false;
      this.scheduleHeartbeat(group, m);
    }
    // Members that never send SyncGroup would leave the others without an assignment for good.
    const generation = group.generationId;
    group.syncTimer = this.timers.setTimeout(() => this.onSyncTimeout(group, generation), group.rebalanceTimeoutMs);
  }

  protected onSyncTimeout(group: Group, generation: number): void {
    group.syncTimer = null;
    if (generation !== group.generationId || !(group.is(GroupState.CompletingRebalance) || group.is(GroupState.Stable)))
      return;
    for (const memberId of [...group.pendingSync]) {
      const m = group.get(memberId);
      if (m)
        this.removeMemberAndUpdateGroup(group, m, `member ${memberId} sent no SyncGroup within the rebalance timeout`);
    }
  }

  /** Clears every member's assignment and answers held SyncGroups with `errorCode`. */
  protected resetAssignments(group: Group, errorCode: number): void {
    for (const m of group.members.values()) {
      m.assignment = Buffer.alloc(0);
      const waiter = m.syncWaiter;
      m.syncWaiter = null;
      waiter?.(syncError(errorCode));
    }
  }

  protected removeMemberAndUpdateGroup(group: Group, member: Member, reason: string): void {
    this.logger.info('removing member', {
      groupId: group.groupId,
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId,
      reason,
    });
    this.fence(member, ErrorCode.UNKNOWN_MEMBER_ID);
    group.remove(member.memberId);
    switch (group.state) {
      case GroupState.Stable:
      case GroupState.CompletingRebalance:
        return this.prepareRebalance(group, reason);
      case GroupState.PreparingRebalance:
        return this.maybeCompleteJoin(group);
      default:
        return;
    }
  }
}

export function updateMember(member: Member, req: JoinGroupInput): void {
  member.protocols = req.protocols;
  member.protocolType = req.protocolType;
  member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
  member.sessionTimeoutMs = req.sessionTimeoutMs;
  member.clientId = req.clientId;
  member.clientHost = req.clientHost;
}

/** Keeps the leader if it rejoined, else makes the first member that rejoined the leader. */
function electJoinedLeader(group: Group): boolean {
  const leader = group.leaderId === null ? undefined : group.get(group.leaderId);
  if (leader?.isAwaitingJoin) return true;
  for (const m of group.members.values()) {
    if (m.isAwaitingJoin) {
      group.leaderId = m.memberId;
      return true;
    }
  }
  return false;
}
