// Share-partition state in the database (storage/share-store.ts): loaded when a share-partition is
// first used since start, written after each change (acquisition, acknowledgement, release, lock
// timeout), one write at a time per share-partition and in order. Acknowledgements are answered once
// their write ended (share-fetcher.ts), as Kafka answers after its share-state write; other changes
// are not awaited. An acquisition is stored as AVAILABLE: after a restart the record goes out again
// with its delivery count, which is KIP-932's at-least-once.
import type { Logger } from '../../logger';
import { KeyedSerial } from '../../keyed-serial';
import type { Storage } from '../../storage/storage';
import type { SharePartitionStore } from './share-partitions';

export class StoredSharePartitions implements SharePartitionStore {
  private readonly serial = new KeyedSerial();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  load: SharePartitionStore['load'] = (groupId, topicId, partition) =>
    this.serial.run(`${groupId}\u0000${topicId}\u0000${partition}`, () =>
      this.storage.sharePartition(groupId, topicId, partition),
    );

  save: SharePartitionStore['save'] = (groupId, topicId, partition, s) => {
    const write = this.serial
      .run(`${groupId}\u0000${topicId}\u0000${partition}`, () =>
        this.storage.storeSharePartition(groupId, topicId, partition, s),
      )
      .catch((err: unknown) => {
        this.logger.warn(
          `share group ${groupId}: storing the state of partition ${partition} of topic id ${topicId} failed (kept in memory; a restart may deliver its records again): ${String(err)}`,
        );
      });
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
    return write;
  };

  /**
   * Replaces (or with null deletes) one share-partition's state in order with the other writes and
   * waits for it: the admin APIs (share-offsets.ts) answer only once it is stored. Throws on failure.
   */
  replace: SharePartitionStore['replace'] = (groupId, topicId, partition, s) =>
    this.serial.run(`${groupId}\u0000${topicId}\u0000${partition}`, () =>
      this.storage.storeSharePartition(groupId, topicId, partition, s),
    );

  /** Every write asked for so far has ended (before the database closes). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
