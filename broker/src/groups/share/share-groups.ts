// Share groups (KIP-932) on this broker: the coordinator (membership), the share-partitions
// (delivery state), the share sessions and the fetcher, wired together. What BrokerContext holds.
import type { Logger } from '../../logger';
import type { Storage } from '../../storage/storage';
import { KAFKA_SHARE_BOUNDS, type ShareConfigBounds } from '../group-configs';
import { ShareCoordinator } from './share-coordinator';
import { ShareFetcher, type PartitionWaiters } from './share-fetcher';
import { ShareGroupConfigs } from './share-group-configs';
import { KAFKA_SHARE_LIMITS, type SharePartitionLimits } from './share-partition';
import { SharePartitions } from './share-partitions';
import { StoredSharePartitions } from './share-persistence';
import { ShareGroupOffsets } from './share-offsets';
import { ShareSessions } from './share-sessions';

export interface ShareGroupsOptions {
  storage: Storage;
  logger: Logger;
  now: () => number;
  fetchWaiters: PartitionWaiters;
  limits?: Partial<SharePartitionLimits>;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  maxGroupSize?: number;
  /** group.share.max.share.sessions (Kafka 2000). */
  maxShareSessions?: number;
  /** What a group's own share.* configs are checked against (group.share.min/max.*). */
  bounds?: ShareConfigBounds;
}

export class ShareGroups {
  readonly coordinator: ShareCoordinator;
  readonly partitions: SharePartitions;
  readonly sessions: ShareSessions;
  readonly fetcher: ShareFetcher;
  readonly limits: SharePartitionLimits;
  readonly bounds: ShareConfigBounds;
  /** Each group's own share.* settings (GROUP configs). */
  readonly configs: ShareGroupConfigs;
  /** The admin APIs: describe, alter and delete share-group offsets, delete share groups. */
  readonly offsets: ShareGroupOffsets;
  private readonly store: StoredSharePartitions;

  private readonly logger: Logger;

  constructor(opts: ShareGroupsOptions) {
    this.logger = opts.logger;
    this.limits = { ...KAFKA_SHARE_LIMITS, ...opts.limits };
    // Kafka's GroupCoordinatorConfig defaults (group.share.*) unless the broker's settings say otherwise.
    this.bounds = { ...KAFKA_SHARE_BOUNDS, ...opts.bounds };
    this.configs = new ShareGroupConfigs(opts.storage, opts.logger, {
      lockDurationMs: this.limits.lockDurationMs,
      sessionTimeoutMs: opts.sessionTimeoutMs ?? KAFKA_SHARE_BOUNDS.shareSessionTimeoutMs,
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? KAFKA_SHARE_BOUNDS.shareHeartbeatIntervalMs,
    });
    this.sessions = new ShareSessions(opts.maxShareSessions);
    this.store = new StoredSharePartitions(opts.storage, opts.logger);
    this.partitions = new SharePartitions(opts.storage, this.store, this.configs, this.limits, {
      now: opts.now,
      // A record whose lock ended may go to a member waiting on the partition.
      wake: (topic, partition) => opts.fetchWaiters.notify(topic, partition),
    });
    this.fetcher = new ShareFetcher({
      storage: opts.storage,
      fetchWaiters: opts.fetchWaiters,
      partitions: this.partitions,
      sessions: this.sessions,
      configs: this.configs,
      now: opts.now,
    });
    this.coordinator = new ShareCoordinator({
      storage: opts.storage,
      logger: opts.logger,
      now: opts.now,
      configs: this.configs,
      maxGroupSize: opts.maxGroupSize ?? 200,
      onMemberGone: (groupId, memberId) => {
        this.sessions.drop(groupId, memberId);
        this.fetcher.releaseMember(groupId, memberId).catch((err: unknown) => {
          opts.logger.warn(
            `share group ${groupId}: releasing the records of member ${memberId} failed: ${String(err)}`,
          );
        });
      },
    });
    this.offsets = new ShareGroupOffsets({
      storage: opts.storage,
      coordinator: this.coordinator,
      partitions: this.partitions,
    });
  }

  /**
   * A client connection closed: the share sessions it opened end and their members' acquired
   * records go back at once (Kafka 4.1 does the same on a disconnect).
   */
  connectionClosed(connectionId: number): void {
    for (const { groupId, memberId } of this.sessions.connectionClosed(connectionId)) {
      this.fetcher.releaseMember(groupId, memberId).catch((err: unknown) => {
        this.logger.warn(`share group ${groupId}: releasing the records of member ${memberId} failed: ${String(err)}`);
      });
    }
  }

  /** A group's configs were altered here (alter-configs.ts): they apply from the next request on. */
  groupConfigsChanged(groupId: string, configs: Record<string, string>): void {
    this.configs.changed(groupId, configs);
  }

  close(): void {
    this.coordinator.close();
    this.partitions.close();
  }

  /** The share-partition and membership writes asked for so far have ended (stop, before the database closes). */
  async writesSettled(): Promise<void> {
    await Promise.all([this.store.settled(), this.coordinator.writesSettled()]);
  }
}
