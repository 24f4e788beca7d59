// The batches appended last, per partition, kept in memory up to a byte budget shared by all
// partitions (issue 33): most consumers read what was just written, and answering them from here
// skips SQLite's blob reads (each blob is copied out of its overflow pages, then into a Buffer).
//
// A partition's cached batches are always a contiguous run of its log, from some offset to the high
// watermark: an append that does not continue the run starts it over. Whatever changes stored
// batches other than an append (retention, DeleteRecords, compaction, a rolled back transaction,
// a deleted topic) drops the batches it touched, or the partition's whole run; dropping is always
// safe, since a read the cache cannot answer goes to the database. Eviction is oldest first
// across partitions.

/** The budget when none is configured: about one second of a small team's busiest producer. */
export const DEFAULT_TAIL_CACHE_BYTES = 8 * 1024 * 1024;

export interface CachedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** The stored blob; emptied when dropped, so a stale eviction entry holds no memory. */
  data: Buffer;
  dropped: boolean;
}

/** One partition's run of cached batches (batches[head..] are live). */
export class PartitionTail {
  batches: CachedBatch[] = [];
  head = 0;
  /** The engine's undo for a rolled back append to this partition (made once, not per row). */
  clearOnRollback?: () => void;

  get size(): number {
    return this.batches.length - this.head;
  }

  first(): CachedBatch | undefined {
    return this.batches[this.head];
  }

  /** The offset after the run (the high watermark when the run is current). */
  nextOffset(): number | undefined {
    const last = this.batches[this.batches.length - 1];
    return this.size === 0 || !last ? undefined : last.lastOffset + 1;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * The batch as the cache keeps it. The stored batch is the produce request's own bytes (the caller
 * does not change them after the append: RecordStore.append), so a batch that is at least half of
 * the memory under it (one batch to a request frame, as producers send them) is kept as it is:
 * copying it cost an allocation outside the heap and a copy per batch, and the external allocations
 * drive V8's major GCs (issue 33: ~15 KB per seed request). A batch that is a small part of a larger
 * buffer (a request to many partitions) is copied, so the cache never keeps more than twice its
 * bytes alive.
 */
function keptBuffer(data: Buffer): Buffer {
  if (data.length * 2 >= data.buffer.byteLength) return data;
  const own = Buffer.allocUnsafeSlow(data.length);
  data.copy(own);
  return own;
}

export class TailCache {
  /** Every cached batch in append order, with its partition; dropped ones linger until they reach the front or a compaction. */
  private fifo: { tail: PartitionTail; batch: CachedBatch }[] = [];
  private fifoHead = 0;
  private live = 0;
  /** Bytes of the live cached batches. */
  bytes = 0;

  constructor(readonly budgetBytes: number = DEFAULT_TAIL_CACHE_BYTES) {}

  /** Caches a batch just stored at `baseOffset` of `tail`'s partition. */
  append(tail: PartitionTail, baseOffset: number, lastOffset: number, data: Buffer): void {
    if (this.budgetBytes <= 0 || data.length > this.budgetBytes) return this.clear(tail);
    if (tail.size > 0 && tail.nextOffset() !== baseOffset) this.clear(tail);
    const kept = keptBuffer(data);
    const batch: CachedBatch = { baseOffset, lastOffset, data: kept, dropped: false };
    tail.batches.push(batch);
    this.fifo.push({ tail, batch });
    this.live++;
    this.bytes += kept.length;
    while (this.bytes > this.budgetBytes && this.evictOldest());
  }

  /**
   * The index in `tail.batches` of the cached batch holding `fetchOffset` or, when that offset
   * fell between batches, the next one; -1 when the run does not reach back to it.
   */
  indexFor(tail: PartitionTail, fetchOffset: number): number {
    const first = tail.first();
    if (!first || first.baseOffset > fetchOffset) return -1;
    let lo = tail.head;
    let hi = tail.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (tail.batches[mid]!.lastOffset < fetchOffset) lo = mid + 1;
      else hi = mid;
    }
    return lo < tail.batches.length ? lo : -1;
  }

  /** Drops the cached batches that end below `endOffset` (retention, DeleteRecords). */
  dropBelow(tail: PartitionTail, endOffset: number): void {
    while (tail.size > 0 && tail.first()!.lastOffset < endOffset) this.dropFirst(tail);
  }

  /** Drops the partition's whole run. */
  clear(tail: PartitionTail): void {
    while (tail.size > 0) this.dropFirst(tail);
    tail.batches = [];
    tail.head = 0;
  }

  private dropFirst(tail: PartitionTail): void {
    const batch = tail.batches[tail.head]!;
    tail.batches[tail.head] = undefined as unknown as CachedBatch; // let the blob go now
    tail.head++;
    if (tail.head > 64 && tail.head * 2 > tail.batches.length) {
      tail.batches = tail.batches.slice(tail.head);
      tail.head = 0;
    }
    this.bytes -= batch.data.length;
    batch.data = EMPTY;
    batch.dropped = true;
    this.live--;
    // Dropped entries wait in the FIFO; compact it once they outnumber the live ones.
    if (this.fifo.length - this.fifoHead > 2 * this.live + 64) {
      this.fifo = this.fifo.slice(this.fifoHead).filter((e) => !e.batch.dropped);
      this.fifoHead = 0;
    }
  }

  /** Drops the oldest live batch; false if there was none. */
  private evictOldest(): boolean {
    while (this.fifoHead < this.fifo.length) {
      const { tail, batch } = this.fifo[this.fifoHead]!;
      this.fifo[this.fifoHead++] = undefined as unknown as { tail: PartitionTail; batch: CachedBatch };
      if (this.fifoHead > 1024 && this.fifoHead * 2 > this.fifo.length) {
        this.fifo = this.fifo.slice(this.fifoHead);
        this.fifoHead = 0;
      }
      if (batch.dropped) continue;
      // Append order is each partition's offset order, so the oldest live entry is its run's first.
      while (!batch.dropped && tail.size > 0) this.dropFirst(tail);
      return true;
    }
    return false;
  }
}
