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
//
// The bytes live in one ring buffer made at the first append, not in the produce requests' own
// Buffers (issue 33): a cached request frame lived long enough to reach V8's old generation, and
// every MB that went through the cache then counted as old-generation garbage outside the heap,
// which starts a full mark-compact every ~9 MB. Measured with `minnow perf produce --compression
// lz4` (64 KiB batches): 40-49 mark-compacts per 5 s and 8.4-9.9 ms of broker CPU per MB with the
// frames kept, 1 and 5.9-6.6 ms without them. A batch is copied in (a memcpy per produced byte) and a
// read copies its batches out into one new Buffer, which dies young: the ring's bytes may be
// overwritten while a response that read them still waits in a socket's queue.

/** The budget when none is configured: about one second of a small team's busiest producer. */
export const DEFAULT_TAIL_CACHE_BYTES = 8 * 1024 * 1024;

export interface CachedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** Where the batch's bytes are in the ring, and how many. */
  readonly at: number;
  readonly length: number;
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

export class TailCache {
  /**
   * Every cached batch in append order, with its partition: also their order in the ring, so the
   * batches a new one overwrites are always at the front. Dropped ones linger until the writes
   * reach them or a compaction.
   */
  private fifo: { tail: PartitionTail; batch: CachedBatch }[] = [];
  private fifoHead = 0;
  private live = 0;
  /** budgetBytes long once something was cached. */
  private ring: Buffer | undefined;
  /** Where the next batch is written (or at 0, when it does not fit before the ring's end). */
  private writeAt = 0;
  /** Bytes of the live cached batches. */
  bytes = 0;

  constructor(readonly budgetBytes: number = DEFAULT_TAIL_CACHE_BYTES) {}

  /** Caches (a copy of) a batch just stored at `baseOffset` of `tail`'s partition. */
  append(tail: PartitionTail, baseOffset: number, lastOffset: number, data: Buffer): void {
    if (this.budgetBytes <= 0 || data.length > this.budgetBytes) return this.clear(tail);
    if (tail.size > 0 && tail.nextOffset() !== baseOffset) this.clear(tail);
    const ring = (this.ring ??= Buffer.allocUnsafeSlow(this.budgetBytes));
    let at = this.writeAt;
    if (at + data.length > ring.length) {
      this.evictOverlapping(at, ring.length); // the end of the ring is skipped this time round
      at = 0;
    }
    this.evictOverlapping(at, at + data.length);
    data.copy(ring, at);
    this.writeAt = at + data.length;
    const batch: CachedBatch = { baseOffset, lastOffset, at, length: data.length, dropped: false };
    tail.batches.push(batch);
    this.fifo.push({ tail, batch });
    this.live++;
    this.bytes += data.length;
  }

  /**
   * Copies of tail.batches[from, to) (`bytes` long in all) in one new Buffer, a view per batch: what
   * a read returns (the ring itself is overwritten by later appends).
   */
  copyOut(tail: PartitionTail, from: number, to: number, bytes: number): Buffer[] {
    const out = Buffer.allocUnsafe(bytes);
    const views: Buffer[] = [];
    let pos = 0;
    for (let i = from; i < to; i++) {
      const b = tail.batches[i]!;
      this.ring!.copy(out, pos, b.at, b.at + b.length);
      views.push(out.subarray(pos, pos + b.length));
      pos += b.length;
    }
    return views;
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
    this.bytes -= batch.length;
    batch.dropped = true;
    this.live--;
    // Dropped entries wait in the FIFO; compact it once they outnumber the live ones.
    if (this.fifo.length - this.fifoHead > 2 * this.live + 64) {
      this.fifo = this.fifo.slice(this.fifoHead).filter((e) => !e.batch.dropped);
      this.fifoHead = 0;
    }
  }

  /** Forgets the batches (live or dropped) whose bytes are in [start, end) of the ring: the oldest ones. */
  private evictOverlapping(start: number, end: number): void {
    while (this.fifoHead < this.fifo.length) {
      const { tail, batch } = this.fifo[this.fifoHead]!;
      if (batch.at >= end || batch.at + batch.length <= start) return;
      this.fifo[this.fifoHead++] = undefined as unknown as { tail: PartitionTail; batch: CachedBatch };
      if (this.fifoHead > 1024 && this.fifoHead * 2 > this.fifo.length) {
        this.fifo = this.fifo.slice(this.fifoHead);
        this.fifoHead = 0;
      }
      if (batch.dropped) continue;
      // Append order is each partition's offset order, so the oldest live entry is its run's first.
      while (!batch.dropped && tail.size > 0) this.dropFirst(tail);
    }
  }
}
