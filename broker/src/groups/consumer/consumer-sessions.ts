// The lower layer of the KIP-848 coordinator (consumer-coordinator.ts on top): its configuration,
// the groups, the topics snapshot, each member's session timer and rebalance timer, fencing a
// member out (its partitions become free, the group epoch moves on and the target assignment is
// computed again), and storing/loading groups (consumer-persistence.ts).
import { StorageError } from '../../storage/storage';
import type { Storage } from '../../storage/storage';
import type { Logger } from '../../logger';
import { KeyedSerial } from '../../keyed-serial';
import { realTimers, TimerHandle, TimerLike } from '../timers';
import type { PartitionAssignor } from './assignor';
import { assignorsNamed, DEFAULT_CONSUMER_ASSIGNORS } from './assignor-registry';
import { ConsumerGroup } from './consumer-group';
import {
  ClassicGroupView,
  ConsumerCoordinatorOptions,
  ConsumerGroupSettings,
  DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS,
  DEFAULT_CONSUMER_SESSION_TIMEOUT_MS,
  DEFAULT_TOPICS_REFRESH_MS,
} from './consumer-options';
import { restoredConsumerGroup, storedConsumerGroup } from './consumer-persistence';
import { sameTopics, EMPTY_TOPICS, topicsView, TopicsView } from './topics-view';
import { classicGroupFromConsumer, MigrationPolicy, shouldDowngrade } from './group-conversion';
import { MemberTimers } from './member-timers';
import { consumerSettingsOf, groupConfigResource, ConsumerConfigBounds, KAFKA_CONSUMER_BOUNDS } from '../group-configs';

const NO_CLASSIC_GROUPS: ClassicGroupView = {
  classicGroupState: () => 'none',
  dropEmptyClassicGroup: () => {},
  classicGroup: () => undefined,
  takeClassicGroup: () => {},
  adoptClassicGroup: () => {},
};

export abstract class ConsumerSessions {
  readonly storage: Storage;
  readonly logger: Logger;
  readonly now: () => number;
  protected readonly timers: TimerLike;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly assignors: readonly PartitionAssignor[];
  readonly maxSize: number;
  private readonly topicsRefreshMs: number;
  /** Checks GROUP config values and gives their defaults (group-configs.ts). */
  readonly bounds: ConsumerConfigBounds;
  /** Each group's own settings (GROUP config resources), read from storage once per group. */
  private readonly groupSettings = new Map<string, ConsumerGroupSettings>();
  protected readonly groups = new Map<string, ConsumerGroup>();
  protected classic: ClassicGroupView = NO_CLASSIC_GROUPS;
  readonly migrationPolicy: MigrationPolicy;
  /** The join and sync deadlines of classic-protocol members (classic-members.ts). */
  protected readonly classicTimers: MemberTimers;
  private view: TopicsView = EMPTY_TOPICS;
  private viewReadAt = -Infinity;
  private viewReading: Promise<TopicsView> | null = null;
  private readonly sessionTimers = new Map<string, TimerHandle>();
  private readonly rebalanceTimers = new Map<string, TimerHandle>();
  private readonly groupWrites: KeyedSerial<string>;
  /** Groups with a write queued that has not started yet (persist() coalesces into it). */
  private readonly queuedWrites = new Set<string>();
  private readonly unsettledWrites = new Set<Promise<void>>();
  protected closed = false;

  constructor(opts: ConsumerCoordinatorOptions) {
    this.storage = opts.storage;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
    this.timers = opts.timers ?? realTimers;
    this.sessionTimeoutMs = opts.sessionTimeoutMs ?? DEFAULT_CONSUMER_SESSION_TIMEOUT_MS;
    this.heartbeatIntervalMs = opts.heartbeatIntervalMs ?? DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS;
    this.assignors = assignorsNamed(opts.assignors ?? DEFAULT_CONSUMER_ASSIGNORS);
    if (this.assignors.length === 0) throw new Error('group.consumer.assignors is empty: name uniform and/or range');
    this.maxSize = opts.maxSize ?? 2_147_483_647;
    this.topicsRefreshMs = opts.topicsRefreshMs ?? DEFAULT_TOPICS_REFRESH_MS;
    this.migrationPolicy = opts.migrationPolicy ?? 'bidirectional';
    this.groupWrites = opts.groupWrites ?? new KeyedSerial<string>();
    this.classicTimers = new MemberTimers(this.timers);
    this.bounds = {
      consumerSessionTimeoutMs: this.sessionTimeoutMs,
      consumerHeartbeatIntervalMs: this.heartbeatIntervalMs,
      consumerMinSessionTimeoutMs: opts.minSessionTimeoutMs ?? KAFKA_CONSUMER_BOUNDS.consumerMinSessionTimeoutMs,
      consumerMaxSessionTimeoutMs: opts.maxSessionTimeoutMs ?? KAFKA_CONSUMER_BOUNDS.consumerMaxSessionTimeoutMs,
      consumerMinHeartbeatIntervalMs:
        opts.minHeartbeatIntervalMs ?? KAFKA_CONSUMER_BOUNDS.consumerMinHeartbeatIntervalMs,
      consumerMaxHeartbeatIntervalMs:
        opts.maxHeartbeatIntervalMs ?? KAFKA_CONSUMER_BOUNDS.consumerMaxHeartbeatIntervalMs,
    };
  }

  /** Set by the classic coordinator, which owns this one (coordinator.ts). */
  attachClassic(view: ClassicGroupView): void {
    this.classic = view;
  }

  group(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  allGroups(): IterableIterator<ConsumerGroup> {
    return this.groups.values();
  }

  protected settingsOf(groupId: string): Required<ConsumerGroupSettings> {
    const s = this.groupSettings.get(groupId) ?? {};
    return {
      sessionTimeoutMs: s.sessionTimeoutMs ?? this.sessionTimeoutMs,
      heartbeatIntervalMs: s.heartbeatIntervalMs ?? this.heartbeatIntervalMs,
    };
  }

  /** Reads the group's GROUP configs the first time the group is heartbeated here. */
  protected async loadGroupSettings(groupId: string): Promise<void> {
    if (this.groupSettings.has(groupId)) return;
    let configs: Record<string, string> = {};
    try {
      configs = await this.storage.brokerConfigs(groupConfigResource(groupId));
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      this.logger.error("reading a group's configs failed; using the broker's", { groupId, err });
      return;
    }
    this.groupSettings.set(groupId, consumerSettingsOf(configs));
  }

  /** A group's configs were altered (IncrementalAlterConfigs on its GROUP resource): used from now. */
  groupConfigsChanged(groupId: string, configs: Record<string, string>): void {
    this.groupSettings.set(groupId, consumerSettingsOf(configs));
  }

  /** The topics snapshot, read again when older than the refresh interval (one read at a time). */
  protected async topics(): Promise<TopicsView> {
    if (this.now() - this.viewReadAt < this.topicsRefreshMs) return this.view;
    this.viewReading ??= this.storage.listTopics().then(
      (list) => {
        this.view = topicsView(list, this.view);
        this.viewReadAt = this.now();
        return this.view;
      },
      (err: unknown) => {
        if (!(err instanceof StorageError)) throw err;
        this.logger.error('listing topics for consumer groups failed; using the last snapshot', { err });
        return this.view;
      },
    );
    try {
      return await this.viewReading;
    } finally {
      this.viewReading = null;
    }
  }

  /** The topics snapshot as last read (callers that need it fresh await freshTopics() first). */
  protected topicsNow(): TopicsView {
    return this.view;
  }

  /** Forces the next heartbeat to read the topics again (a topic was created or deleted here). */
  topicsChanged(): void {
    this.viewReadAt = -Infinity;
  }

  /**
   * Recomputes what the group's subscriptions resolve to; a change bumps the group epoch.
   * Returns true when the epoch moved.
   */
  protected refreshSubscriptions(group: ConsumerGroup, view: TopicsView, forceBump: boolean): boolean {
    let bump = forceBump;
    if (bump || group.metadataVersion !== view.version) {
      const resolved = group.resolveSubscriptions(view);
      if (!sameTopics(resolved, group.subscriptionMetadata)) bump = true;
      group.subscriptionMetadata = resolved;
      group.metadataVersion = view.version;
    }
    if (bump) group.groupEpoch += 1;
    return bump;
  }

  /** The target assignment for the group epoch (Kafka's TargetAssignmentBuilder + assignor). */
  protected computeTargetAssignment(group: ConsumerGroup): void {
    const fallback = this.assignors[0]!.name;
    const name = group.preferredAssignor(fallback);
    const assignor = this.assignors.find((a) => a.name === name) ?? this.assignors[0]!;
    const result = assignor.assign(group.assignorMembers(), group.assignorTopics());
    group.targetAssignment.clear();
    for (const [memberId, a] of result) group.targetAssignment.set(memberId, a);
    group.assignmentEpoch = group.groupEpoch;
    group.assignorName = assignor.name;
    this.logger.debug('computed a new target assignment', {
      groupId: group.groupId,
      epoch: group.groupEpoch,
      assignor: assignor.name,
      members: group.size,
    });
  }

  /**
   * Removes a member (left, session or rebalance timeout): the group moves to a new epoch, whose
   * target assignment the next heartbeat computes (as Kafka: the group is Assigning meanwhile).
   */
  protected fenceMember(group: ConsumerGroup, memberId: string, reason: string): void {
    if (shouldDowngrade(group, memberId, this.migrationPolicy)) return this.downgrade(group, memberId, reason);
    if (!group.removeMember(memberId)) return;
    this.clearMemberTimers(group.groupId, memberId);
    this.refreshSubscriptions(group, this.view, true);
    this.persist(group);
    this.logger.info('consumer group member removed', {
      groupId: group.groupId,
      memberId,
      reason,
      groupEpoch: group.groupEpoch,
      members: group.size,
    });
  }

  /**
   * The last consumer-protocol member leaves a group of classic members (Kafka's
   * convertToClassicGroup): the classic coordinator takes them over as a Stable classic group
   * holding their target assignment, and rebalances it.
   */
  protected downgrade(group: ConsumerGroup, leavingMemberId: string, reason: string, rebalance = true): void {
    const classic = classicGroupFromConsumer(group, leavingMemberId, this.view.byId);
    this.clearGroupTimers(group);
    this.groups.delete(group.groupId);
    this.logger.info('consumer group downgraded to a classic group', {
      groupId: group.groupId,
      leavingMemberId,
      reason,
      generationId: classic.generationId,
      members: classic.size,
    });
    this.classic.adoptClassicGroup(
      classic,
      `downgrade of group ${group.groupId} from consumer to classic (${reason})`,
      rebalance,
    );
  }

  protected scheduleSessionTimeout(group: ConsumerGroup, memberId: string): void {
    const key = `${group.groupId}\u0000${memberId}`;
    const old = this.sessionTimers.get(key);
    if (old !== undefined) this.timers.clearTimeout(old);
    // A classic-protocol member keeps the session timeout of its JoinGroup.
    const timeoutMs =
      group.members.get(memberId)?.classic?.sessionTimeoutMs ?? this.settingsOf(group.groupId).sessionTimeoutMs;
    this.sessionTimers.set(
      key,
      this.timers.setTimeout(() => {
        this.sessionTimers.delete(key);
        if (this.groups.get(group.groupId) === group)
          this.fenceMember(group, memberId, `session timeout (${timeoutMs} ms) expired`);
      }, timeoutMs),
    );
  }

  /** A member asked to revoke partitions must do so within its rebalance timeout, or it is fenced. */
  protected scheduleRebalanceTimeout(group: ConsumerGroup, memberId: string, memberEpoch: number, ms: number): void {
    const key = `${group.groupId}\u0000${memberId}`;
    this.cancelRebalanceTimeout(group.groupId, memberId);
    this.rebalanceTimers.set(
      key,
      this.timers.setTimeout(() => {
        this.rebalanceTimers.delete(key);
        const m = group.members.get(memberId);
        if (this.groups.get(group.groupId) === group && m?.memberEpoch === memberEpoch)
          this.fenceMember(group, memberId, `did not revoke its partitions within its rebalance timeout (${ms} ms)`);
      }, ms),
    );
  }

  protected cancelRebalanceTimeout(groupId: string, memberId: string): void {
    const key = `${groupId}\u0000${memberId}`;
    const t = this.rebalanceTimers.get(key);
    if (t !== undefined) this.timers.clearTimeout(t);
    this.rebalanceTimers.delete(key);
  }

  protected clearMemberTimers(groupId: string, memberId: string): void {
    const key = `${groupId}\u0000${memberId}`;
    const t = this.sessionTimers.get(key);
    if (t !== undefined) this.timers.clearTimeout(t);
    this.sessionTimers.delete(key);
    this.cancelRebalanceTimeout(groupId, memberId);
    this.classicTimers.clearMember(groupId, memberId);
  }

  protected clearGroupTimers(group: ConsumerGroup): void {
    for (const memberId of group.members.keys()) this.clearMemberTimers(group.groupId, memberId);
  }

  /**
   * Stores the group, after its earlier writes; the answer does not wait for it. Writes coalesce:
   * while one is queued, more changes ride on it (it snapshots the group when it starts), so a
   * large group reconciling writes its whole state a few times, not once per heartbeat. A write
   * starts at the end of the event-loop turn (setImmediate), not at once: a synchronous engine
   * (SQLite) would otherwise finish each write before the next heartbeat arrives and nothing would
   * ride on it. Each write stores every member, so one per heartbeat made forming a 1,000-member
   * group cost ~46 s of CPU (BENCHMARKS.md, group heartbeats).
   */
  protected persist(group: ConsumerGroup): void {
    if (this.queuedWrites.has(group.groupId)) return;
    this.queuedWrites.add(group.groupId);
    let groupEpoch = group.groupEpoch;
    const write = this.groupWrites
      .run(group.groupId, async () => {
        // Queued now (a later delete of the group goes after it), snapshotted at the turn's end.
        await new Promise<void>((resolve) => setImmediate(resolve));
        this.queuedWrites.delete(group.groupId);
        // Replaced meanwhile (deleted and made again): the newer group writes its own state. A
        // group closed or unloaded still writes its last state (the broker awaits writesSettled()).
        const current = this.groups.get(group.groupId);
        if (current !== undefined && current !== group) return;
        groupEpoch = group.groupEpoch;
        const snapshot = storedConsumerGroup(group, this.now(), this.settingsOf(group.groupId).sessionTimeoutMs);
        return this.storage.storeGroupMetadata(group.groupId, snapshot);
      })
      .catch((err: unknown) =>
        this.logger.error("storing a consumer group's state failed; a restart will make its members rejoin", {
          groupId: group.groupId,
          groupEpoch,
          err,
        }),
      );
    this.unsettledWrites.add(write);
    void write.finally(() => this.unsettledWrites.delete(write));
  }

  /**
   * Forgets an empty group (DeleteGroups, or a classic member taking the id over), with its stored
   * state; false if it has members. Offsets are the caller's.
   */
  dropEmptyGroup(groupId: string): boolean {
    const group = this.groups.get(groupId);
    if (!group) return true;
    if (group.size > 0) return false;
    this.groups.delete(groupId);
    const write = this.groupWrites
      .run(groupId, () => this.storage.storeGroupMetadata(groupId, null))
      .catch((err: unknown) => this.logger.error("deleting a consumer group's stored state failed", { groupId, err }));
    this.unsettledWrites.add(write);
    void write.finally(() => this.unsettledWrites.delete(write));
    return true;
  }

  /** The broker's topics by id as last read (ConsumerGroupDescribe names them). */
  topicsById(): ReadonlyMap<string, import('./topics-view').TopicFacts> {
    return this.view.byId;
  }

  /** Reads the topics now if the snapshot is older than the refresh interval. */
  freshTopics(): Promise<TopicsView> {
    return this.topics();
  }

  async writesSettled(): Promise<void> {
    await Promise.all([...this.unsettledWrites]);
  }

  /** A stored consumer group loaded (classic coordinator's loadGroup found the mark): timers restart. */
  adoptStored(stored: Parameters<typeof restoredConsumerGroup>[0]): void {
    if (this.closed || this.groups.has(stored.groupId)) return;
    const group = restoredConsumerGroup(stored);
    this.groups.set(group.groupId, group);
    for (const m of group.members.values()) this.scheduleSessionTimeout(group, m.memberId);
    this.logger.info('consumer group loaded from storage', {
      groupId: group.groupId,
      groupEpoch: group.groupEpoch,
      members: group.size,
    });
  }

  /** Forgets a group's in-memory state (its coordination moved to another broker, src/cluster). */
  unload(groupId: string): void {
    this.groupSettings.delete(groupId); // read again (another broker may have changed them)
    const group = this.groups.get(groupId);
    if (!group) return;
    this.clearGroupTimers(group);
    this.groups.delete(groupId);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const groupId of [...this.groups.keys()]) this.unload(groupId);
  }
}
