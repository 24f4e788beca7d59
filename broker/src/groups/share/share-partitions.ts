// Every share-partition of every share group on this broker (Kafka's SharePartitionManager cache):
// created on a group's first ShareFetch of the partition, its start offset set by the group's
// `share.auto.offset.reset` (latest by default: only records produced from then on are delivered),
// or resumed from the stored state (share-persistence.ts).
import type { Storage } from '../../storage/storage';
import type { TopicInfo } from '../../storage/topic-store';
import { groupConfigResource } from '../group-configs';
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

const key = (groupId: string, topicId: string, partition: number) => `${groupId}\u0000${topicId}\u0000${partition}`;

export class SharePartitions {
  private readonly partitions = new Map<string, Promise<SharePartition>>();

  constructor(
    private readonly storage: Storage,
    private readonly store: SharePartitionStore,
    private readonly limits: SharePartitionLimits = KAFKA_SHARE_LIMITS,
  ) {}

  get(groupId: string, topic: TopicInfo, partition: number): Promise<SharePartition> {
    const k = key(groupId, topic.topicId, partition);
    let p = this.partitions.get(k);
    if (!p) {
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
    this.partitions.set(key(groupId, topicId, partition), Promise.resolve(fresh));
    await this.store.replace(groupId, topicId, partition, fresh.snapshot());
  }

  /** DeleteShareGroupOffsets / DeleteGroups: the share-partition's state is gone (loaded and stored). */
  async forget(groupId: string, topicId: string, partition: number): Promise<void> {
    this.partitions.delete(key(groupId, topicId, partition));
    await this.store.replace(groupId, topicId, partition, null);
  }

  /** Stores one partition's state after a change; resolves when written (acknowledgements wait for it). */
  changed(groupId: string, topicId: string, partition: number, state: SharePartition): Promise<void> {
    return this.store.save(groupId, topicId, partition, state.snapshot());
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
    const configs = await this.storage.brokerConfigs(groupConfigResource(groupId));
    const reset = (configs['share.auto.offset.reset'] ?? 'latest').toLowerCase();
    // by_duration:<ISO duration> is not supported yet: it starts as latest does.
    const start = reset === 'earliest' ? logStart : logEnd;
    return new SharePartition(start, start, this.limits);
  }
}
