// Kafka's CleanedTransactionMetadata (LogCleaner.scala): while the cleaner walks a partition in
// offset order it knows which transactions are aborted (from the aborted index) and which
// committed transactions still have batches, so that aborted batches are dropped and a marker is
// dropped only once no batch of its transaction is left.
import { isTransactional } from '../../protocol/record-batch';
import type { AbortedTransaction } from '../storage';

export class TxnTracker {
  private readonly aborted: AbortedTransaction[];
  private next = 0;
  /** Producer id -> whether a batch of its aborted transaction was seen in this walk. */
  private readonly ongoingAborted = new Map<number, boolean>();
  private readonly ongoingCommitted = new Set<number>();

  /** `aborted`: the partition's aborted ranges; those ending before `fromOffset` are ignored. */
  constructor(aborted: readonly AbortedTransaction[], fromOffset: number) {
    this.aborted = aborted.filter((a) => a.lastOffset >= fromOffset).sort((a, b) => a.firstOffset - b.firstOffset);
  }

  private consumeUpTo(offset: number): void {
    while (this.next < this.aborted.length && this.aborted[this.next]!.firstOffset <= offset) {
      this.ongoingAborted.set(this.aborted[this.next]!.producerId, false);
      this.next++;
    }
  }

  /** A data batch: true when it belongs to an aborted transaction (all its records go). */
  onBatch(b: { lastOffset: number; producerId: number }, attributes: number): boolean {
    this.consumeUpTo(b.lastOffset);
    if (!isTransactional(attributes)) return false;
    if (this.ongoingAborted.has(b.producerId)) {
      this.ongoingAborted.set(b.producerId, true);
      return true;
    }
    this.ongoingCommitted.add(b.producerId);
    return false;
  }

  /** A COMMIT/ABORT marker: true when no batch of its transaction was seen (it may go, once its horizon passed). */
  onMarker(b: { lastOffset: number; producerId: number }, abort: boolean): boolean {
    this.consumeUpTo(b.lastOffset);
    if (abort) {
      const seen = this.ongoingAborted.get(b.producerId);
      this.ongoingAborted.delete(b.producerId);
      return seen !== true;
    }
    return !this.ongoingCommitted.delete(b.producerId);
  }
}
