// Every share-partition of every share group on this broker (Kafka's SharePartitionManager cache):
// created on a group's first ShareFetch of the partition, its start offset set by the group's
// `share.auto.offset.reset` (latest by default: only records produced from then on are delivered),
// or resumed from the stored state (share-persistence.ts). Each share-partition with acquired
// records has a timer at its earliest lock end: an expired lock makes the record available again
// (or archives it at the delivery limit), stores the change and wakes a ShareFetch waiting on the
// partition, without waiting for the next fetch (Kafka's AcquisitionLockTimerTask).
import { offsetForTimestamp } from '../../storage/record-times';
import type { Storage } from '../../storage/storage';
import type { TopicInfo } from '../../storage/topic-store';
import type { ShareGroupConfigs } from './share-group-configs';
import { parseShareAutoOffsetReset } from './share-auto-offset-reset';
import {
  KAFKA_SHARE_LIMITS,
  SharePartition,
  type SharePartitionLimits,
  type SharePartitionSnapshot,
} from './share-partition';

export interface SharePartitionStore {
  load(groupId: string, topicId: string, partition: number): Promise<SharePartitionSnapshot | undefined>;
  /** Resolves once the write ended (a failure is logged, not thrown). */
  save(groupId: string, topicId: string, partition: number, s: SharePartitionSnapshot): Promise<void>;
  /** Stores (null: deletes) one share-partition now, after the writes before it. */
  replace(groupId: string, topicId: string, partition: number, s: SharePartitionSnapshot | null): Promise<void>;
}

/** When locks end: the clock, and who to wake (a ShareFetch long-poll on that partition). */
export interface LockTimerHooks {
  now: () => number;
  wake: (topicName: string, partition: number) => void;
}

const NO_TIMER_HOOKS: LockTimerHooks = { now: Date.now, wake: () => {} };

const key = (groupId: string, topicId: string, partition: number) => `${groupId}\u0000${topicId}\u0000${partition}`;

export class SharePartitions {
  private readonly partitions = new Map<string, Promise<SharePartition>>();
  private readonly topicNames = new Map<string, string>();
  private readonly lockTimers = new Map<string, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly storage: Storage,
    private readonly store: SharePartitionStore,
    private readonly configs: ShareGroupConfigs,
    private readonly limits: SharePartitionLimits = KAFKA_SHARE_LIMITS,
    private readonly hooks: LockTimerHooks = NO_TIMER_HOOKS,
  ) {}

  get(groupId: string, topic: TopicInfo, partition: number): Promise<SharePartition> {
    const k = key(groupId, topic.topicId, partition);
    let p = this.partitions.get(k);
    if (!p) {
      this.topicNames.set(k, topic.name);
      p = this.create(groupId, topic, partition);
      this.partitions.set(k, p);
      p.catch(() => this.partitions.delete(k));
    }
    return p;
  }

  /** The partitions of `groupId` already loaded (a leaving member's records are released in them). */
  async loaded(groupId: string): Promise<Array<{ topicId: string; partition: number; state: SharePartition }>> {
    const out: Array<{ topicId: string; partition: number; state: SharePartition }> = [];
    for (const [k, p] of this.partitions) {
      const [g, topicId, part] = k.split('\u0000');
      if (g !== groupId) continue;
      out.push({ topicId: topicId!, partition: Number(part), state: await p });
    }
    return out;
  }

  /** The share-partition if this broker has it loaded (the admin APIs read it without loading it). */
  peek(groupId: string, topicId: string, partition: number): Promise<SharePartition> | undefined {
    return this.partitions.get(key(groupId, topicId, partition));
  }

  /**
   * AlterShareGroupOffsets on an empty group: the share-partition starts again at `startOffset` with
   * nothing in flight (Kafka's InitializeShareGroupState with the new start offset).
   */
  async reset(groupId: string, topicId: string, partition: number, startOffset: number): Promise<void> {
    const fresh = new SharePartition(startOffset, startOffset, this.limits);
    this.stopLockTimer(key(groupId, topicId, partition));
    this.partitions.set(key(groupId, topicId, partition), Promise.resolve(fresh));
    await this.store.replace(groupId, topicId, partition, fresh.snapshot());
  }

  /** DeleteShareGroupOffsets / DeleteGroups: the share-partition's state is gone (loaded and stored). */
  async forget(groupId: string, topicId: string, partition: number): Promise<void> {
    this.partitions.delete(key(groupId, topicId, partition));
    this.stopLockTimer(key(groupId, topicId, partition));
    await this.store.replace(groupId, topicId, partition, null);
  }

  /**
   * Stores one partition's state after a change and re-arms its lock timer; resolves when written
   * (acknowledgements wait for it).
   */
  changed(groupId: string, topicId: string, partition: number, state: SharePartition): Promise<void> {
    const written = this.store.save(groupId, topicId, partition, state.snapshot());
    this.armLockTimer(groupId, topicId, partition, state);
    return written;
  }

  /**
   * Forgets the share-partitions `keep` says no (their leadership moved to another broker, which
   * loads them from the database); read again from the database if they come back.
   */
  dropUnless(keep: (topicName: string, partition: number) => boolean): void {
    for (const k of [...this.partitions.keys()]) {
      const name = this.topicNames.get(k);
      const partition = Number(k.split('\u0000')[2]);
      if (name === undefined || keep(name, partition)) continue;
      this.partitions.delete(k);
      this.topicNames.delete(k);
      this.stopLockTimer(k);
    }
  }

  private stopLockTimer(k: string): void {
    const t = this.lockTimers.get(k);
    if (t) clearTimeout(t.timer);
    this.lockTimers.delete(k);
  }

  /** Stops the lock timers (broker stop). */
  close(): void {
    for (const t of this.lockTimers.values()) clearTimeout(t.timer);
    this.lockTimers.clear();
  }

  private armLockTimer(groupId: string, topicId: string, partition: number, state: SharePartition): void {
    const k = key(groupId, topicId, partition);
    const at = state.nextLockEnd();
    const current = this.lockTimers.get(k);
    if (current?.at === at) return;
    if (current) clearTimeout(current.timer);
    this.lockTimers.delete(k);
    if (at === undefined) return;
    const timer = setTimeout(
      () => {
        this.lockTimers.delete(k);
        if (state.expireLocks(this.hooks.now())) {
          void this.store.save(groupId, topicId, partition, state.snapshot());
          const name = this.topicNames.get(k);
          if (name !== undefined) this.hooks.wake(name, partition);
        }
        this.armLockTimer(groupId, topicId, partition, state);
      },
      Math.max(0, at - this.hooks.now()),
    );
    timer.unref();
    this.lockTimers.set(k, { at, timer });
  }

  private async create(groupId: string, topic: TopicInfo, partition: number): Promise<SharePartition> {
    const stored = await this.store.load(groupId, topic.topicId, partition);
    const offsets = await this.storage.offsets(topic.name, partition);
    const logStart = offsets?.logStartOffset ?? 0;
    const logEnd = offsets?.highWatermark ?? 0;
    if (stored) {
      const p = SharePartition.fromSnapshot(stored, this.limits);
      // Retention or DeleteRecords may have removed records since.
      p.moveStartTo(logStart);
      return p;
    }
    const start = await this.startOffset(groupId, topic.name, partition, logStart, logEnd);
    return new SharePartition(start, start, this.limits);
  }

  /** Where a share-partition the group never read starts (share.auto.offset.reset). */
  private async startOffset(
    groupId: string,
    topic: string,
    partition: number,
    logStart: number,
    logEnd: number,
  ): Promise<number> {
    const reset = parseShareAutoOffsetReset((await this.configs.of(groupId)).autoOffsetReset);
    if ('error' in reset || reset.kind === 'latest') return logEnd;
    if (reset.kind === 'earliest') return logStart;
    // by_duration: the first record at or after now - duration, as ListOffsets finds it; none: the end.
    const since = this.hooks.now() - reset.durationMs;
    const found = offsetForTimestamp(await this.storage.batchForTimestamp(topic, partition, since), since);
    return found ? Math.max(found.offset, logStart) : logEnd;
  }
}
