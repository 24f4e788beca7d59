// The coordinator's timers, the lowest layer of the group coordinator (coordinator.ts on top of
// static-member-join.ts on top of rebalance.ts on top of this): its configuration and groups, each
// member's session timer, the MEMBER_ID_REQUIRED members' expiry, and answering held requests.
// All time comes from the injected clock and scheduler, so tests never sleep.
import { ErrorCode } from '../protocol/error-codes';
import type { Logger } from '../logger';
import { KeyedSerial } from '../keyed-serial';
import { StorageError } from '../storage/storage';
import type { Storage } from '../storage/storage';
import { Group, JoinResult, joinError, Member, SyncResult, syncError } from './group';
import { GroupState } from './group-state';
import { DEFAULT_INITIAL_REBALANCE_DELAY_MS, GroupCoordinatorOptions } from './coordinator-options';
import type { GroupRegistry } from './group-registry';
import { restoredGroup, storedGroup } from './group-persistence';
import { realTimers, TimerHandle, TimerLike } from './timers';
import { ConsumerClassicMembers } from './consumer/classic-members';
import { isStoredConsumerGroup } from './consumer/consumer-persistence';
import { isStoredShareGroup } from './share/share-membership';
import type { StoredGroup } from '../storage/group-metadata';

/** The share groups (groups/share/), seen from here: they share the group-id space and the rows. */
export interface ShareGroupsView {
  has(groupId: string): boolean;
  adoptStored(stored: StoredGroup): void;
  unload(groupId: string): void;
}

export abstract class GroupSessions implements GroupRegistry {
  readonly storage: Storage;
  readonly logger: Logger;
  readonly now: () => number;
  protected readonly timers: TimerLike;
  readonly initialRebalanceDelayMs: number;
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  protected readonly newMemberJoinTimeoutMs: number;
  protected readonly groups = new Map<string, Group>();
  protected closed = false;
  /** The KIP-848 consumer groups (groups/consumer/), sharing the group-id space with these. */
  readonly consumer: ConsumerClassicMembers;
  /** The share groups, attached by the broker (broker.ts): loaded and unloaded with these. */
  protected share: ShareGroupsView | undefined;
  readonly offsetWrites = new KeyedSerial<string>();
  /** Membership writes of one group, in the order the rebalances ended (group-persistence.ts). */
  protected readonly groupWrites = new KeyedSerial<string>();
  /** Groups whose stored membership was read (or is being read) since start or since unload(). */
  protected readonly loads = new Map<string, Promise<number>>();
  private readonly unsettledWrites = new Set<Promise<void>>();

  constructor(opts: GroupCoordinatorOptions) {
    this.storage = opts.storage;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
    this.timers = opts.timers ?? realTimers;
    this.initialRebalanceDelayMs = opts.initialRebalanceDelayMs ?? DEFAULT_INITIAL_REBALANCE_DELAY_MS;
    this.minSessionTimeoutMs = opts.minSessionTimeoutMs ?? 6_000;
    this.maxSessionTimeoutMs = opts.maxSessionTimeoutMs ?? 1_800_000;
    this.newMemberJoinTimeoutMs = opts.newMemberJoinTimeoutMs ?? 300_000;
    this.consumer = new ConsumerClassicMembers({
      ...opts.consumer,
      storage: this.storage,
      logger: this.logger,
      now: this.now,
      timers: this.timers,
      groupWrites: this.groupWrites,
    });
    this.consumer.attachClassic({
      classicGroupState: (groupId) => {
        const g = this.groups.get(groupId);
        if (!g || g.is(GroupState.Dead)) return 'none';
        return g.is(GroupState.Empty) && g.size === 0 && g.pendingMembers.size === 0 ? 'empty' : 'active';
      },
      dropEmptyClassicGroup: (groupId) => {
        this.groups.delete(groupId);
      },
      classicGroup: (groupId) => this.groups.get(groupId),
      takeClassicGroup: (groupId) => this.handOver(groupId),
      adoptClassicGroup: (group, reason, rebalance) => this.adoptDowngraded(group, reason, rebalance),
    });
  }

  /**
   * An online upgrade takes the group (Kafka's convertToConsumerGroup): held JoinGroup/SyncGroup
   * answered REBALANCE_IN_PROGRESS, so their members rejoin the consumer group; timers stopped.
   */
  private handOver(groupId: string): void {
    this.dropGroup(groupId, ErrorCode.REBALANCE_IN_PROGRESS);
  }

  /** Forgets a group held here: its timers stop and held JoinGroup/SyncGroup answer `errorCode`. */
  protected dropGroup(groupId: string, errorCode: number): void {
    const group = this.groups.get(groupId);
    if (!group) return;
    this.clearTimer(group, 'joinTimer');
    this.clearTimer(group, 'syncTimer');
    for (const t of group.pendingMembers.values()) this.timers.clearTimeout(t);
    group.pendingMembers.clear();
    for (const m of group.members.values()) this.fence(m, errorCode);
    this.groups.delete(groupId);
  }

  /**
   * A consumer group downgraded to this Stable classic group: stored, sessions started, rebalanced
   * (not when a static member replaced another with the same subscription, as Kafka).
   */
  private adoptDowngraded(group: Group, reason: string, rebalance: boolean): void {
    this.groups.set(group.groupId, group);
    for (const m of group.members.values()) this.scheduleHeartbeat(group, m);
    this.persist(group);
    if (rebalance) this.prepareRebalance(group, reason);
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

  /** The share groups load their stored membership through loadGroup too (broker.ts). */
  attachShare(view: ShareGroupsView): void {
    this.share = view;
  }

  /**
   * Reads the group's stored membership the first time the group is touched (every group request
   * passes server/cluster-answers.ts coordinatorGate first; on postgres:// after this broker took
   * the group's lease): NONE, or COORDINATOR_NOT_AVAILABLE when the storage failed (a retry reads
   * again). Members come back with their session timers restarted, as in Kafka's loadGroup.
   */
  loadGroup(groupId: string): Promise<number> {
    const known = this.loads.get(groupId);
    if (known) return known;
    const done: Promise<number> = this.storage.groupMetadata(groupId).then(
      (stored) => {
        // Unloaded or closed meanwhile, or made in memory already (no gate before it): keep that.
        if (
          this.loads.get(groupId) !== done ||
          this.closed ||
          this.groups.has(groupId) ||
          this.consumer.group(groupId) !== undefined ||
          this.share?.has(groupId)
        )
          return ErrorCode.NONE;
        if (!stored || (stored.members.length === 0 && stored.generationId === 0)) return ErrorCode.NONE;
        if (isStoredShareGroup(stored)) {
          this.share?.adoptStored(stored);
          return ErrorCode.NONE;
        }
        if (isStoredConsumerGroup(stored)) {
          this.consumer.adoptStored(stored);
          return ErrorCode.NONE;
        }
        const group = restoredGroup(stored);
        this.groups.set(groupId, group);
        for (const m of group.members.values()) this.scheduleHeartbeat(group, m);
        this.logger.info('group loaded from storage', {
          groupId,
          state: group.state,
          generationId: group.generationId,
          members: group.size,
        });
        return ErrorCode.NONE;
      },
      (err: unknown) => {
        if (!(err instanceof StorageError)) throw err;
        if (this.loads.get(groupId) === done) this.loads.delete(groupId);
        this.logger.error("reading a group's stored membership failed", { groupId, err });
        return ErrorCode.COORDINATOR_NOT_AVAILABLE;
      },
    );
    this.loads.set(groupId, done);
    return done;
  }

  /**
   * Stores the group as it is now (the end of a rebalance), after its earlier writes. The answers
   * do not wait for it: a failed write is logged, and costs the group one rebalance after a restart.
   */
  protected persist(group: Group): void {
    const snapshot = storedGroup(group, this.now());
    const write = this.groupWrites
      .run(group.groupId, () => this.storage.storeGroupMetadata(group.groupId, snapshot))
      .catch((err: unknown) =>
        this.logger.error("storing a group's membership failed; a restart will cost it a rebalance", {
          groupId: group.groupId,
          generationId: snapshot.generationId,
          err,
        }),
      );
    this.unsettledWrites.add(write);
    void write.finally(() => this.unsettledWrites.delete(write));
  }

  /** Settles once every membership write issued so far has (the broker awaits it before closing storage). */
  async writesSettled(): Promise<void> {
    await Promise.all([...this.unsettledWrites, this.consumer.writesSettled()]);
  }

  /** Removes a member whose session expired (rebalance.ts). */
  protected abstract removeMemberAndUpdateGroup(group: Group, member: Member, reason: string): void;
  /** Starts a rebalance (rebalance.ts). */
  protected abstract prepareRebalance(group: Group, reason: string): void;
  /** Ends the join phase if every member rejoined (rebalance.ts). */
  protected abstract maybeCompleteJoin(group: Group): void;

  /** Restarts the member's session: it expires `timeoutMs` from now unless it heartbeats again. */
  protected scheduleHeartbeat(group: Group, member: Member, timeoutMs = member.sessionTimeoutMs): void {
    if (member.heartbeatTimer !== null) this.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatDeadlineMs = this.now() + timeoutMs;
    member.heartbeatTimer = this.timers.setTimeout(() => this.onHeartbeatTimer(group, member), timeoutMs);
  }

  protected onHeartbeatTimer(group: Group, member: Member): void {
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

  protected addPendingMember(group: Group, memberId: string, sessionTimeoutMs: number): void {
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

  /** Answers the member's held requests with `errorCode` and stops its session timer. */
  protected fence(member: Member, errorCode: number): void {
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
  protected setJoinWaiter(member: Member, respond: (r: JoinResult) => void): void {
    const old = member.joinWaiter;
    member.joinWaiter = respond;
    old?.(joinError(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
  }

  protected setSyncWaiter(member: Member, respond: (r: SyncResult) => void): void {
    const old = member.syncWaiter;
    member.syncWaiter = respond;
    old?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
  }

  protected clearTimer(group: Group, which: 'joinTimer' | 'syncTimer'): void {
    const t: TimerHandle | null = group[which];
    if (t !== null) this.timers.clearTimeout(t);
    group[which] = null;
  }

  /** Drops a group that never got a member (e.g. a failed first join); offsets, if any, stay stored. */
  protected maybeForget(group: Group): void {
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
