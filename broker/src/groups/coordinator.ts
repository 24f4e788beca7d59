// The classic group coordinator (KIP-62/KIP-394/KIP-345 behaviour of Kafka's GroupCoordinator.scala),
// with this broker the coordinator of every group. Membership lives in memory; committed offsets go
// to Storage. All time comes from the injected clock and scheduler, so tests never sleep.
//
// Every held JoinGroup/SyncGroup response is a promise that is always settled: by the rebalance
// completing, by an error when the member is removed, replaced or superseded, or by close().
import { randomUUID } from 'node:crypto';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { Logger } from '../logger';
import { StorageError } from '../storage/storage';
import { KeyedSerial } from '../keyed-serial';
import type { Storage } from '../storage/storage';
import {
  Group,
  GroupProtocol,
  JoinResult,
  joinError,
  Member,
  SyncResult,
  syncError,
  validateCurrentMember,
} from './group';
import { GroupState } from './group-state';
import * as admin from './group-admin';
import * as offsets from './group-offsets';
import type { GroupRegistry } from './group-registry';
import { realTimers, TimerHandle, TimerLike } from './timers';

/** Kafka's group.initial.rebalance.delay.ms default (GroupCoordinatorConfig.GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT). */
export const DEFAULT_INITIAL_REBALANCE_DELAY_MS = 3000;

export interface GroupCoordinatorOptions {
  storage: Storage;
  logger: Logger;
  now?: () => number;
  timers?: TimerLike;
  /**
   * group.initial.rebalance.delay.ms: how long the rebalance of an Empty group waits for more
   * members; for a new group (generation 0) extended while new ones keep arriving, up to the
   * rebalance timeout. Kafka's default, 3000, so consumers starting together share one rebalance.
   */
  initialRebalanceDelayMs?: number;
  /** group.min.session.timeout.ms (Kafka: 6000). */
  minSessionTimeoutMs?: number;
  /** group.max.session.timeout.ms (Kafka: 1800000). */
  maxSessionTimeoutMs?: number;
  /** How long a new member's JoinGroup may be held before the member is dropped (Kafka: 5 min). */
  newMemberJoinTimeoutMs?: number;
}

export interface JoinGroupInput {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  /** JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED and its id (KIP-394). */
  requireKnownMemberId: boolean;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: GroupProtocol[];
  reason?: string | null;
}

export interface SyncGroupInput {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** v5+: checked against the group's (INCONSISTENT_GROUP_PROTOCOL on mismatch). */
  protocolType: string | null;
  protocolName: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export interface MemberIdentity {
  memberId: string;
  groupInstanceId: string | null;
  reason?: string | null;
}

export interface LeaveResult {
  errorCode: number;
  members: (MemberIdentity & { errorCode: number })[];
}

export class GroupCoordinator implements GroupRegistry {
  readonly storage: Storage;
  readonly logger: Logger;
  readonly now: () => number;
  private readonly timers: TimerLike;
  readonly initialRebalanceDelayMs: number;
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  private readonly newMemberJoinTimeoutMs: number;
  private readonly groups = new Map<string, Group>();
  private closed = false;
  readonly offsetWrites = new KeyedSerial<string>();

  constructor(opts: GroupCoordinatorOptions) {
    this.storage = opts.storage;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
    this.timers = opts.timers ?? realTimers;
    this.initialRebalanceDelayMs = opts.initialRebalanceDelayMs ?? DEFAULT_INITIAL_REBALANCE_DELAY_MS;
    this.minSessionTimeoutMs = opts.minSessionTimeoutMs ?? 6_000;
    this.maxSessionTimeoutMs = opts.maxSessionTimeoutMs ?? 1_800_000;
    this.newMemberJoinTimeoutMs = opts.newMemberJoinTimeoutMs ?? 300_000;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The in-memory group, if any (groups known only by stored offsets are not in memory). */
  group(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  /** In-memory groups, for ListGroups. */
  allGroups(): IterableIterator<Group> {
    return this.groups.values();
  }

  // ---------------------------------------------------------------- JoinGroup

  joinGroup(req: JoinGroupInput): Promise<JoinResult> {
    return new Promise((resolve) =>
      this.doJoin(req, (r) => {
        if (r.errorCode !== ErrorCode.NONE && this.logger.enabled('debug')) {
          this.logger.debug('JoinGroup answered with an error', {
            groupId: req.groupId,
            memberId: r.memberId,
            error: errorName(r.errorCode),
          });
        }
        resolve(r);
      }),
    );
  }

  private doJoin(req: JoinGroupInput, respond: (r: JoinResult) => void): void {
    if (this.closed) return respond(joinError(ErrorCode.NOT_COORDINATOR, req.memberId));
    if (req.groupId === '') return respond(joinError(ErrorCode.INVALID_GROUP_ID, req.memberId));
    if (req.sessionTimeoutMs < this.minSessionTimeoutMs || req.sessionTimeoutMs > this.maxSessionTimeoutMs) {
      return respond(joinError(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId));
    }
    const isUnknownMember = req.memberId === '';
    let group = this.groups.get(req.groupId);
    if (!group) {
      // A known member id for a group we do not have (e.g. after a restart): the client resets its id.
      if (!isUnknownMember) return respond(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
      group = new Group(req.groupId);
      this.groups.set(req.groupId, group);
    }
    if (isUnknownMember) this.joinNewMember(group, req, respond);
    else this.joinCurrentMember(group, req, respond);
    this.maybeCompleteJoin(group);
    this.maybeForget(group);
  }

  private joinNewMember(group: Group, req: JoinGroupInput, respond: (r: JoinResult) => void): void {
    if (group.is(GroupState.Dead)) return respond(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(req.protocolType, req.protocols))
      return respond(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const memberId = `${req.groupInstanceId ?? req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) return this.joinStaticMember(group, req, memberId, respond);
    if (req.requireKnownMemberId) {
      // KIP-394: hand out the id first, so a client that times out and retries does not leave ghosts.
      this.addPendingMember(group, memberId, req.sessionTimeoutMs);
      return respond(joinError(ErrorCode.MEMBER_ID_REQUIRED, memberId));
    }
    this.addMemberAndRebalance(group, req, memberId, respond);
  }

  private joinCurrentMember(group: Group, req: JoinGroupInput, respond: (r: JoinResult) => void): void {
    if (group.is(GroupState.Dead)) return respond(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.memberId));
    if (!group.supportsProtocols(req.protocolType, req.protocols))
      return respond(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId));
    const pending = group.pendingMembers.get(req.memberId);
    if (pending !== undefined) {
      // A member back from MEMBER_ID_REQUIRED. Static members are never pending.
      if (req.groupInstanceId !== null) return respond(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
      this.timers.clearTimeout(pending);
      group.pendingMembers.delete(req.memberId);
      return this.addMemberAndRebalance(group, req, req.memberId, respond);
    }
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return respond(joinError(error, req.memberId));
    const member = group.get(req.memberId)!;
    switch (group.state) {
      case GroupState.PreparingRebalance:
        return this.updateMemberAndRebalance(group, member, req, respond, 'member rejoined');
      case GroupState.CompletingRebalance:
        // It lost the JoinGroup response: the same metadata gets the same answer again.
        if (member.matches(req.protocols))
          return respond(this.currentJoinResult(group, member, group.isLeader(member.memberId)));
        return this.updateMemberAndRebalance(
          group,
          member,
          req,
          respond,
          `member ${member.memberId} changed its metadata`,
        );
      case GroupState.Stable:
        // The leader rejoining (e.g. its subscription's topics changed) or new metadata: rebalance.
        if (group.isLeader(member.memberId) || !member.matches(req.protocols)) {
          return this.updateMemberAndRebalance(
            group,
            member,
            req,
            respond,
            `${group.isLeader(member.memberId) ? 'leader' : 'member'} ${member.memberId} rejoined${req.reason ? ` (${req.reason})` : ''}`,
          );
        }
        return respond(this.currentJoinResult(group, member, false));
      default:
        return respond(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
    }
  }

  /** KIP-345: a static member (re)joining without a member id. */
  private joinStaticMember(
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

  private addMemberAndRebalance(
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

  private updateMemberAndRebalance(
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

  private currentJoinResult(group: Group, member: Member, includeMembers: boolean): JoinResult {
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

  private addPendingMember(group: Group, memberId: string, sessionTimeoutMs: number): void {
    const timer = this.timers.setTimeout(() => {
      if (group.pendingMembers.get(memberId) !== timer) return;
      group.pendingMembers.delete(memberId);
      this.logger.debug('pending member did not rejoin within its session timeout', {
        groupId: group.groupId,
        memberId,
      });
      this.maybeCompleteJoin(group);
      this.maybeForget(group);
    }, sessionTimeoutMs);
    group.pendingMembers.set(memberId, timer);
  }

  // ---------------------------------------------------------------- rebalance

  private maybePrepareRebalance(group: Group, reason: string): void {
    if (group.is(GroupState.Stable) || group.is(GroupState.CompletingRebalance) || group.is(GroupState.Empty))
      this.prepareRebalance(group, reason);
  }

  private prepareRebalance(group: Group, reason: string): void {
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
  private onInitialDelayExpired(group: Group): void {
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

  private onJoinTimeout(group: Group): void {
    group.joinTimer = null;
    if (group.is(GroupState.PreparingRebalance)) this.completeJoin(group);
  }

  private maybeCompleteJoin(group: Group): void {
    if (group.is(GroupState.PreparingRebalance) && group.initialDelay === null && group.hasAllMembersJoined)
      this.completeJoin(group);
  }

  /** The join phase ends: everyone rejoined, or the rebalance timeout passed. */
  private completeJoin(group: Group): void {
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

  private onSyncTimeout(group: Group, generation: number): void {
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
  private resetAssignments(group: Group, errorCode: number): void {
    for (const m of group.members.values()) {
      m.assignment = Buffer.alloc(0);
      const waiter = m.syncWaiter;
      m.syncWaiter = null;
      waiter?.(syncError(errorCode));
    }
  }

  // ---------------------------------------------------------------- SyncGroup

  syncGroup(req: SyncGroupInput): Promise<SyncResult> {
    return new Promise((resolve) => this.doSync(req, resolve));
  }

  private doSync(req: SyncGroupInput, respond: (r: SyncResult) => void): void {
    if (this.closed) return respond(syncError(ErrorCode.NOT_COORDINATOR));
    if (req.groupId === '') return respond(syncError(ErrorCode.INVALID_GROUP_ID));
    const group = this.groups.get(req.groupId);
    if (!group) return respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    if (group.is(GroupState.Dead)) return respond(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return respond(syncError(error));
    if (req.generationId !== group.generationId) return respond(syncError(ErrorCode.ILLEGAL_GENERATION));
    if (
      (req.protocolType !== null && req.protocolType !== group.protocolType) ||
      (req.protocolName !== null && req.protocolName !== group.protocolName)
    ) {
      return respond(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    const member = group.get(req.memberId)!;
    switch (group.state) {
      case GroupState.PreparingRebalance:
        return respond(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case GroupState.CompletingRebalance: {
        this.setSyncWaiter(member, respond);
        this.syncReceived(group, member.memberId);
        if (!group.isLeader(member.memberId)) return;
        const assignments = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
        for (const m of group.members.values()) {
          // Members the leader left out get an empty assignment, as in Kafka.
          m.assignment = assignments.get(m.memberId) ?? Buffer.alloc(0);
          const waiter = m.syncWaiter;
          m.syncWaiter = null;
          waiter?.({
            errorCode: ErrorCode.NONE,
            protocolType: group.protocolType,
            protocolName: group.protocolName,
            assignment: m.assignment,
          });
          if (waiter) this.scheduleHeartbeat(group, m);
        }
        group.transitionTo(GroupState.Stable);
        this.logger.info('group is stable', {
          groupId: group.groupId,
          generationId: group.generationId,
          members: group.size,
        });
        return;
      }
      case GroupState.Stable:
        this.syncReceived(group, member.memberId);
        this.scheduleHeartbeat(group, member);
        return respond({
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        });
      default:
        return respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  private syncReceived(group: Group, memberId: string): void {
    group.pendingSync.delete(memberId);
    if (group.pendingSync.size === 0) this.clearTimer(group, 'syncTimer');
  }

  // ---------------------------------------------------------------- Heartbeat, LeaveGroup

  heartbeat(req: { groupId: string; generationId: number; memberId: string; groupInstanceId: string | null }): number {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(req.groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return error;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    const member = group.get(req.memberId)!;
    switch (group.state) {
      case GroupState.Stable:
      case GroupState.CompletingRebalance:
        // Clients may heartbeat between their JoinGroup and SyncGroup responses: a normal heartbeat.
        this.scheduleHeartbeat(group, member);
        return ErrorCode.NONE;
      case GroupState.PreparingRebalance:
        this.scheduleHeartbeat(group, member);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      default:
        return ErrorCode.UNKNOWN_MEMBER_ID;
    }
  }

  /** LeaveGroup: v0-2 name one member by id; v3+ a batch, by id and/or group.instance.id. */
  leaveGroup(groupId: string, leaving: readonly MemberIdentity[]): LeaveResult {
    if (this.closed) return { errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.groups.get(groupId);
    if (!group)
      return {
        errorCode: ErrorCode.NONE,
        members: leaving.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })),
      };
    if (group.is(GroupState.Dead)) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const members = leaving.map((l) => ({ ...l, errorCode: this.leaveOne(group, l) }));
    this.maybeForget(group);
    return { errorCode: ErrorCode.NONE, members };
  }

  private leaveOne(group: Group, l: MemberIdentity): number {
    const why = `member left the group${l.reason ? ` (${l.reason})` : ''}`;
    if (l.memberId === '') {
      // Administrative removal by group.instance.id (KIP-345).
      const current = l.groupInstanceId === null ? undefined : group.staticMemberId(l.groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      this.removeMemberAndUpdateGroup(group, group.get(current)!, why);
      return ErrorCode.NONE;
    }
    const pending = group.pendingMembers.get(l.memberId);
    if (pending !== undefined) {
      this.timers.clearTimeout(pending);
      group.pendingMembers.delete(l.memberId);
      this.maybeCompleteJoin(group);
      return ErrorCode.NONE;
    }
    const error = validateCurrentMember(group, l.memberId, l.groupInstanceId);
    if (error !== null) return error;
    this.removeMemberAndUpdateGroup(group, group.get(l.memberId)!, why);
    return ErrorCode.NONE;
  }

  private removeMemberAndUpdateGroup(group: Group, member: Member, reason: string): void {
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

  // ---------------------------------------------------------------- sessions

  /** Restarts the member's session: it expires `timeoutMs` from now unless it heartbeats again. */
  private scheduleHeartbeat(group: Group, member: Member, timeoutMs = member.sessionTimeoutMs): void {
    if (member.heartbeatTimer !== null) this.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatDeadlineMs = this.now() + timeoutMs;
    member.heartbeatTimer = this.timers.setTimeout(() => this.onHeartbeatTimer(group, member), timeoutMs);
  }

  private onHeartbeatTimer(group: Group, member: Member): void {
    member.heartbeatTimer = null;
    if (group.get(member.memberId) !== member) return;
    // Kafka's hasSatisfiedHeartbeat: a member whose JoinGroup/SyncGroup is held is alive (it cannot
    // heartbeat meanwhile), unless it is new and its first join has taken too long.
    if (!member.isNew && (member.isAwaitingJoin || member.isAwaitingSync)) return this.scheduleHeartbeat(group, member);
    if (this.now() < member.heartbeatDeadlineMs) {
      member.heartbeatTimer = this.timers.setTimeout(
        () => this.onHeartbeatTimer(group, member),
        member.heartbeatDeadlineMs - this.now(),
      );
      return;
    }
    this.removeMemberAndUpdateGroup(
      group,
      member,
      `session timeout (${member.isNew ? this.newMemberJoinTimeoutMs : member.sessionTimeoutMs} ms) expired`,
    );
    this.maybeForget(group);
  }

  // ---------------------------------------------------------------- offsets and admin

  commitOffsets(req: offsets.CommitInput): Promise<number[]> {
    return offsets.commitOffsets(this, req);
  }

  fetchOffsets(groupId: string, topics: offsets.FetchTopic[] | null): Promise<offsets.FetchResult> {
    return offsets.fetchOffsets(this, groupId, topics);
  }

  deleteOffsets(groupId: string, topics: offsets.FetchTopic[]): Promise<offsets.DeleteOffsetsResult> {
    return offsets.deleteOffsets(this, groupId, topics);
  }

  listGroups(statesFilter: readonly string[] = [], typesFilter: readonly string[] = []): Promise<admin.ListedGroup[]> {
    return admin.listGroups(this, statesFilter, typesFilter);
  }

  describeGroup(groupId: string): Promise<admin.DescribedGroup> {
    return admin.describeGroup(this, groupId);
  }

  /** DeleteGroups: only Empty groups (else NON_EMPTY_GROUP); deletes their committed offsets. */
  async deleteGroups(groupIds: readonly string[]): Promise<{ groupId: string; errorCode: number }[]> {
    const out = [];
    for (const groupId of groupIds)
      out.push({ groupId, errorCode: await this.offsetWrites.run(groupId, () => this.deleteGroup(groupId)) });
    return out;
  }

  /**
   * As Kafka's handleDeleteGroups: an Empty group turns Dead (in memory, at once, so no member
   * joins it meanwhile), then its offsets go. A group known only by its offsets is looked up first.
   */
  private async deleteGroup(groupId: string): Promise<number> {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    const group = this.groups.get(groupId);
    if (group) {
      if (!group.is(GroupState.Empty))
        return group.is(GroupState.Dead) ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NON_EMPTY_GROUP;
      for (const t of group.pendingMembers.values()) this.timers.clearTimeout(t);
      group.pendingMembers.clear();
      this.clearTimer(group, 'joinTimer');
      this.clearTimer(group, 'syncTimer');
      group.transitionTo(GroupState.Dead);
      this.groups.delete(groupId);
      // A failed delete leaves the offsets: the group is then an Empty one known by its offsets.
      if (!(await this.deleteStoredOffsets(groupId))) return ErrorCode.NOT_COORDINATOR;
      this.logger.info('group deleted', { groupId });
      return ErrorCode.NONE;
    }
    let stored;
    try {
      stored = await this.storage.fetchOffsets(groupId);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      this.logger.error("reading a group's offsets failed", { groupId, err });
      return ErrorCode.NOT_COORDINATOR;
    }
    if (stored.length === 0) return ErrorCode.GROUP_ID_NOT_FOUND;
    // A member may have joined while the offsets were read: the group is not empty any more.
    if (this.groups.get(groupId) && !this.groups.get(groupId)!.is(GroupState.Empty)) return ErrorCode.NON_EMPTY_GROUP;
    if (!(await this.deleteStoredOffsets(groupId))) return ErrorCode.NOT_COORDINATOR;
    this.logger.info('group deleted', { groupId });
    return ErrorCode.NONE;
  }

  /** False when the storage failed (a full disk): the group is answered NOT_COORDINATOR. */
  private async deleteStoredOffsets(groupId: string): Promise<boolean> {
    try {
      await this.storage.deleteOffsets(groupId);
      return true;
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      this.logger.error("deleting a group's offsets failed", { groupId, err });
      return false;
    }
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Clears every timer and answers every held JoinGroup/SyncGroup with NOT_COORDINATOR (clients look
   * for the coordinator again), so the server can drain and stop at once. Later requests get
   * NOT_COORDINATOR too.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const groupId of [...this.groups.keys()]) this.unload(groupId);
  }

  /**
   * Forgets a group's membership (its coordination moved to another broker sharing the database,
   * src/cluster): held JoinGroup/SyncGroup are answered NOT_COORDINATOR and its timers stop, so the
   * members find the new coordinator and rejoin there. Committed offsets are in storage, untouched.
   */
  unload(groupId: string): void {
    const group = this.groups.get(groupId);
    if (!group) return;
    this.clearTimer(group, 'joinTimer');
    this.clearTimer(group, 'syncTimer');
    for (const t of group.pendingMembers.values()) this.timers.clearTimeout(t);
    group.pendingMembers.clear();
    for (const m of group.members.values()) this.fence(m, ErrorCode.NOT_COORDINATOR);
    this.groups.delete(groupId);
  }

  // ---------------------------------------------------------------- helpers

  /** Answers the member's held requests with `errorCode` and stops its session timer. */
  private fence(member: Member, errorCode: number): void {
    if (member.heartbeatTimer !== null) this.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = null;
    const join = member.joinWaiter;
    const sync = member.syncWaiter;
    member.joinWaiter = null;
    member.syncWaiter = null;
    join?.(joinError(errorCode, member.memberId));
    sync?.(syncError(errorCode));
  }

  /** A member sending JoinGroup again while one is held (it gave up on it): the old one is answered. */
  private setJoinWaiter(member: Member, respond: (r: JoinResult) => void): void {
    const old = member.joinWaiter;
    member.joinWaiter = respond;
    old?.(joinError(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
  }

  private setSyncWaiter(member: Member, respond: (r: SyncResult) => void): void {
    const old = member.syncWaiter;
    member.syncWaiter = respond;
    old?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
  }

  private clearTimer(group: Group, which: 'joinTimer' | 'syncTimer'): void {
    const t: TimerHandle | null = group[which];
    if (t !== null) this.timers.clearTimeout(t);
    group[which] = null;
  }

  /** Drops a group that never got a member (e.g. a failed first join); offsets, if any, stay stored. */
  private maybeForget(group: Group): void {
    if (
      group.is(GroupState.Empty) &&
      group.size === 0 &&
      group.pendingMembers.size === 0 &&
      group.generationId === 0 &&
      this.groups.get(group.groupId) === group
    ) {
      this.groups.delete(group.groupId);
    }
  }
}

function updateMember(member: Member, req: JoinGroupInput): void {
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
