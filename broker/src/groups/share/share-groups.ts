// Share groups (KIP-932) on this broker: the coordinator (membership), the share-partitions
// (delivery state), the share sessions and the fetcher, wired together. What BrokerContext holds.
import type { Logger } from '../../logger';
import type { Storage } from '../../storage/storage';
import { ShareCoordinator } from './share-coordinator';
import { ShareFetcher, type PartitionWaiters } from './share-fetcher';
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
}

export class ShareGroups {
  readonly coordinator: ShareCoordinator;
  readonly partitions: SharePartitions;
  readonly sessions = new ShareSessions();
  readonly fetcher: ShareFetcher;
  readonly limits: SharePartitionLimits;
  /** The admin APIs: describe, alter and delete share-group offsets, delete share groups. */
  readonly offsets: ShareGroupOffsets;
  private readonly store: StoredSharePartitions;

  constructor(opts: ShareGroupsOptions) {
    this.limits = { ...KAFKA_SHARE_LIMITS, ...opts.limits };
    this.store = new StoredSharePartitions(opts.storage, opts.logger);
    this.partitions = new SharePartitions(opts.storage, this.store, this.limits);
    this.fetcher = new ShareFetcher({
      storage: opts.storage,
      fetchWaiters: opts.fetchWaiters,
      partitions: this.partitions,
      sessions: this.sessions,
      now: opts.now,
    });
    this.coordinator = new ShareCoordinator({
      storage: opts.storage,
      logger: opts.logger,
      now: opts.now,
      // Kafka's GroupCoordinatorConfig defaults (group.share.*).
      sessionTimeoutMs: opts.sessionTimeoutMs ?? 45_000,
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 5_000,
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

  close(): void {
    this.coordinator.close();
  }

  /** The share-partition writes asked for so far have ended (stop, before the database closes). */
  writesSettled(): Promise<void> {
    return this.store.settled();
  }
}
