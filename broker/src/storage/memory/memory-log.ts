// One partition of the memory:// engine: its batches in offset order, its offsets and producer
// states. The rules (fetch range, KIP-74, retention) come from log-rules.ts, like SQLite's.
import { ErrorCode } from '../../protocol/error-codes';
import type { BatchRow } from '../append-plan';
import { checkFetchOffset, fitsFetch, producerLastOffset, retentionDeletes } from '../log-rules';
import type { RetentionLimits } from '../log-rules';
import type { CleanerCheckpoint } from '../compaction/cleaner';
import type { ProducerPartitionState } from '../producer-state';
import type { AbortedTransaction, ReadResult, StoredBatch } from '../storage';
import { lastStableOffset, overlappingAborted, stateAfterMarker } from '../txn-rules';
import { activeProducer, markerRefusal, newestBatchOffset } from '../active-producers';
import type { ActiveProducer, TxnMarkerResult } from '../active-producers';
import { controlBatch } from '../control-batch';

export class MemoryLog {
  logStartOffset = 0;
  highWatermark = 0;
  bytes = 0;
  /** Oldest first; baseOffset strictly increasing. */
  readonly batches: BatchRow[] = [];
  readonly producers = new Map<number, ProducerPartitionState>();
  /** Producer id -> first offset of its ongoing transaction here (the open_txn rows). */
  readonly openTxns = new Map<number, number>();
  /** Aborted transactions, in marker (lastOffset) order (Kafka's .txnindex). */
  aborted: AbortedTransaction[] = [];
  /** The compactor's last pass here (compaction/cleaner.ts), if any. */
  cleaner: CleanerCheckpoint | undefined;

  lastStableOffset(): number {
    return lastStableOffset(this.openTxns.values(), this.highWatermark, this.logStartOffset);
  }

  /** Appends a COMMIT/ABORT marker row (control-batch.ts) at the high watermark and ends the producer's open transaction. */
  appendMarker(row: BatchRow, commit: boolean): void {
    const first = this.openTxns.get(row.producerId);
    if (!commit && first !== undefined)
      this.aborted.push({ producerId: row.producerId, firstOffset: first, lastOffset: row.lastOffset });
    this.openTxns.delete(row.producerId);
    const state = stateAfterMarker(this.producers.get(row.producerId), row.producerEpoch);
    if (state) this.producers.set(row.producerId, state);
    this.append([row], row.lastOffset + 1);
  }

  /** DescribeProducers: every producer with state here, by producer id (active-producers.ts). */
  activeProducers(): ActiveProducer[] {
    return [...this.producers.entries()]
      .sort(([a], [b]) => a - b)
      .map(([id, state]) => {
        const base = newestBatchOffset(state);
        const newest = base === undefined ? undefined : this.batches[this.indexHolding(base)];
        const ts = newest?.baseOffset === base ? newest?.maxTimestamp : undefined;
        return activeProducer(id, state, this.openTxns.get(id), ts);
      });
  }

  /** WriteTxnMarkers: the operator's marker for one producer (SyncStorage.writeTxnMarker). */
  writeMarker(
    producerId: number,
    epoch: number,
    commit: boolean,
    nowMs: number,
    logAppendTime: boolean,
  ): TxnMarkerResult {
    const refused = markerRefusal(this.producers.get(producerId), producerId, epoch);
    if (refused) return refused;
    const offset = this.highWatermark;
    this.appendMarker(controlBatch(producerId, epoch, commit, offset, nowMs, logAppendTime), commit);
    return { errorCode: 0, message: null, offset };
  }

  /** Stores planned rows; copies each blob so the request frame it points into can be freed. */
  append(rows: readonly BatchRow[], highWatermark: number): void {
    for (const r of rows) {
      this.batches.push({ ...r, data: Buffer.from(r.data) });
      this.bytes += r.size;
    }
    this.highWatermark = highWatermark;
  }

  read(fetchOffset: number, maxBytes: number, minOneBatch = true, readCommitted = false): ReadResult {
    const lso = this.lastStableOffset();
    const empty = checkFetchOffset(this, fetchOffset, lso, readCommitted);
    if (empty) return empty;
    const batches: Buffer[] = [];
    let total = 0;
    let lastReturned = -1;
    for (let i = this.indexHolding(fetchOffset); i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (readCommitted && b.lastOffset >= lso) break; // only whole batches below the LSO
      if (!fitsFetch(total, b.size, maxBytes, minOneBatch)) break;
      batches.push(b.data);
      total += b.size;
      lastReturned = b.lastOffset;
    }
    return {
      errorCode: ErrorCode.NONE,
      highWatermark: this.highWatermark,
      logStartOffset: this.logStartOffset,
      lastStableOffset: lso,
      batches,
      abortedTransactions:
        readCommitted && batches.length > 0 ? overlappingAborted(this.aborted, fetchOffset, lastReturned) : [],
    };
  }

  batchForTimestamp(timestampMs: number): StoredBatch | undefined {
    const b = this.batches.find((x) => x.maxTimestamp >= timestampMs);
    return b && stored(b);
  }

  batchWithMaxTimestamp(): StoredBatch | undefined {
    let best: BatchRow | undefined;
    for (const b of this.batches) if (!best || b.maxTimestamp > best.maxTimestamp) best = b;
    return best && stored(best);
  }

  /** Deletes whole batches ending below `endOffset`, moves the log start, forgets idle producers. */
  deleteBelow(endOffset: number, logStartOffset: number): { batches: number; bytes: number } {
    let n = 0;
    let bytes = 0;
    while (n < this.batches.length && this.batches[n]!.lastOffset < endOffset) bytes += this.batches[n++]!.size;
    this.batches.splice(0, n);
    this.bytes -= bytes;
    this.logStartOffset = Math.max(this.logStartOffset, logStartOffset);
    // As Kafka drops .txnindex entries with their segments: ranges wholly below the log start go.
    this.aborted = this.aborted.filter((a) => a.lastOffset >= this.logStartOffset);
    for (const [producerId, state] of this.producers) {
      if (producerLastOffset(state) < this.logStartOffset) this.producers.delete(producerId);
    }
    return { batches: n, bytes };
  }

  /** Retention: deletes at most `maxBatches` of the oldest batches the limits expire. */
  enforceRetention(limits: RetentionLimits, maxBatches: number): { batches: number; bytes: number } {
    let bytes = this.bytes;
    let endOffset = -1;
    for (let i = 0; i < this.batches.length && i < maxBatches; i++) {
      const b = this.batches[i]!;
      if (!retentionDeletes(b, bytes, this.highWatermark, limits)) break;
      bytes -= b.size;
      endOffset = b.lastOffset + 1;
    }
    return endOffset < 0 ? { batches: 0, bytes: 0 } : this.deleteBelow(endOffset, endOffset);
  }

  /** Index of the batch holding `offset` (or the first after it), by binary search. */
  private indexHolding(offset: number): number {
    let lo = 0;
    let hi = this.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.batches[mid]!.lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function stored(b: BatchRow): StoredBatch {
  return { baseOffset: b.baseOffset, lastOffset: b.lastOffset, maxTimestamp: b.maxTimestamp, data: b.data };
}
