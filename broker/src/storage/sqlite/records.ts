// The log: appending planned batches, fetching them back as stored blobs, timestamp lookups and
// DeleteRecords. Partition offsets live in the partition table and in the cached PartitionEntry;
// both change in one transaction, and the undo log puts the cache back if it rolls back.
// Transactions' partition side lives here too: the append's check of a producer's transaction
// (txn-rules.ts), open_txn (the last stable offset, cached per partition), the COMMIT/ABORT
// markers and aborted_txn (the ranges a read_committed fetch returns).
import type Database from 'better-sqlite3';
import { ErrorCode } from '../../protocol/error-codes';
import { planAppend } from '../append-plan';
import { checkFetchOffset, deleteRecordsTarget, fitsFetch, unknownPartitionRead } from '../log-rules';
import type { BatchRow } from '../append-plan';
import type {
  AbortedTransaction,
  DeleteRecordsResult,
  PartitionAppend,
  PartitionAppendResult,
  ReadResult,
  StoredBatch,
  TransactionState,
} from '../storage';
import { checkTxnBatch, lastStableOffset, stateAfterMarker } from '../txn-rules';
import { PartitionTail, TailCache } from '../tail-cache';
import { BatchReader } from './batch-reader';
import type { Producers } from './producers';
import type { PartitionEntry, Topics } from './topics';
import type { Transactor } from './transaction';

const STORED_BATCH = 'base_offset AS baseOffset, last_offset AS lastOffset, max_timestamp AS maxTimestamp, data';

export class Records {
  private readonly q;
  /** A fetch's batches in one statement (batch-reader.ts). */
  private readonly reader;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
    private readonly topics: Topics,
    private readonly producers: Producers,
    /** The batches appended last (tail-cache.ts): reads at the end of a partition skip SQLite. */
    private readonly tailCache: TailCache,
  ) {
    this.reader = new BatchReader(db);
    this.q = {
      insert: db.prepare(
        `INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp,
           producer_id, producer_epoch, base_sequence, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      setOffsets: db.prepare('UPDATE partition SET log_start_offset = ?, high_watermark = ? WHERE id = ?'),
      // Transactions: the producer's transaction (append's KIP-890 check), open and aborted ones.
      // A transactional batch's check (txn-rules.ts) in one statement: the producer's transaction
      // and whether this partition was added to it.
      txnOfProducer: db.prepare(
        `SELECT t.producer_epoch AS epoch, t.state,
                EXISTS (SELECT 1 FROM txn_partition p
                        WHERE p.transactional_id = t.transactional_id AND p.partition_id = ?) AS added
         FROM txn t WHERE t.producer_id = ?`,
      ),
      insertOpen: db.prepare('INSERT INTO open_txn (partition_id, producer_id, first_offset) VALUES (?, ?, ?)'),
      deleteOpen: db.prepare('DELETE FROM open_txn WHERE partition_id = ? AND producer_id = ?'),
      insertAborted: db.prepare(
        'INSERT INTO aborted_txn (partition_id, producer_id, first_offset, last_offset) VALUES (?, ?, ?, ?)',
      ),
      abortedBetween: db.prepare(
        `SELECT producer_id AS producerId, first_offset AS firstOffset, last_offset AS lastOffset FROM aborted_txn
         WHERE partition_id = ? AND last_offset >= ? AND first_offset <= ? ORDER BY first_offset, last_offset`,
      ),
      deleteAbortedBelow: db.prepare('DELETE FROM aborted_txn WHERE partition_id = ? AND last_offset < ?'),
      byBaseOffset: db.prepare(`SELECT ${STORED_BATCH} FROM record_batch WHERE partition_id = ? AND base_offset = ?`),
      // No index on max_timestamp: ListOffsets by time is rare, and an index would cost every insert.
      firstAtTimestamp: db
        .prepare(
          'SELECT base_offset FROM record_batch WHERE partition_id = ? AND max_timestamp >= ? ORDER BY base_offset LIMIT 1',
        )
        .pluck(),
      maxTimestamp: db
        .prepare(
          'SELECT base_offset FROM record_batch WHERE partition_id = ? ORDER BY max_timestamp DESC, base_offset LIMIT 1',
        )
        .pluck(),
      bytes: db.prepare('SELECT coalesce(sum(size), 0) FROM record_batch WHERE partition_id = ?').pluck(),
      deleteBelow: db
        .prepare(
          'DELETE FROM record_batch WHERE partition_id = ? AND base_offset < ? AND last_offset < ? RETURNING size',
        )
        .pluck(),
    };
  }

  append(parts: readonly PartitionAppend[], nowMs: number): PartitionAppendResult[] {
    return this.tx.run(() => {
      const results: PartitionAppendResult[] = [];
      const touched = new Set<PartitionEntry>();
      for (const part of parts) {
        const entry = this.topics.partition(part.topic, part.partition);
        if (!entry) {
          results.push(
            failed(
              ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              -1,
              `unknown topic or partition ${part.topic}-${part.partition}`,
            ),
          );
          continue;
        }
        const plan = planAppend(
          entry.highWatermark,
          (producerId) => this.producers.state(entry.id, producerId),
          part,
          nowMs,
          (header) => {
            const producerId = Number(header.producerId);
            return checkTxnBatch(header, () => this.producerTxn(producerId, entry.id), entry.openTxns.has(producerId));
          },
        );
        if (!('rows' in plan)) {
          results.push(failed(plan.errorCode, entry.logStartOffset, plan.errorMessage));
          continue;
        }
        let bytes = 0;
        for (const r of plan.rows) {
          this.insertRow(entry, r);
          bytes += r.size;
        }
        // forEach, not for-of: no iterator and no [key, value] array per entry (issue 33's garbage per request).
        if (plan.producers.size > 0)
          plan.producers.forEach((state, producerId) => this.producers.save(entry.id, producerId, state));
        if (plan.txnFirstOffsets.size > 0)
          plan.txnFirstOffsets.forEach((first, producerId) => this.openTxn(entry, producerId, first));
        if (plan.rows.length > 0) {
          this.setOffsets(entry, entry.logStartOffset, plan.highWatermark, bytes);
          touched.add(entry);
        }
        results.push({
          errorCode: ErrorCode.NONE,
          baseOffset: plan.baseOffset,
          logAppendTimeMs: plan.logAppendTimeMs,
          logStartOffset: entry.logStartOffset,
          errorMessage: null,
        });
      }
      // One UPDATE per partition per call, however many produce requests the server grouped.
      touched.forEach((e) => this.q.setOffsets.run(e.logStartOffset, e.highWatermark, e.id));
      return results;
    });
  }

  read(
    topic: string,
    partition: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch = true,
    readCommitted = false,
  ): ReadResult {
    const entry = this.topics.partition(topic, partition);
    if (!entry) return unknownPartitionRead();
    const lso = this.lastStableOffset(entry);
    const empty = checkFetchOffset(entry, fetchOffset, lso, readCommitted);
    if (empty) return empty;
    const tail = (entry.tail ??= new PartitionTail());
    const cached = this.tailCache.indexFor(tail, fetchOffset);
    if (cached >= 0)
      return this.readCached(entry, tail, cached, fetchOffset, maxBytes, minOneBatch, readCommitted, lso);
    const { batches, lastReturned } = this.reader.read(
      entry.id,
      fetchOffset,
      maxBytes,
      minOneBatch,
      readCommitted,
      lso,
    );
    return {
      errorCode: ErrorCode.NONE,
      highWatermark: entry.highWatermark,
      logStartOffset: entry.logStartOffset,
      lastStableOffset: lso,
      batches,
      abortedTransactions:
        readCommitted && batches.length > 0
          ? (this.q.abortedBetween.all(entry.id, fetchOffset, lastReturned) as AbortedTransaction[])
          : [],
    };
  }

  /** read() answered from the tail cache, from tail.batches[index] on: the same rules as the query. */
  private readCached(
    entry: PartitionEntry,
    tail: PartitionTail,
    index: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch: boolean,
    readCommitted: boolean,
    lso: number,
  ): ReadResult {
    let total = 0;
    let lastReturned = -1;
    let end = index;
    for (; end < tail.batches.length; end++) {
      const b = tail.batches[end]!;
      if (readCommitted && b.lastOffset >= lso) break;
      if (!fitsFetch(total, b.length, maxBytes, minOneBatch)) break;
      total += b.length;
      lastReturned = b.lastOffset;
    }
    const batches = end > index ? this.tailCache.copyOut(tail, index, end, total) : [];
    return {
      errorCode: ErrorCode.NONE,
      highWatermark: entry.highWatermark,
      logStartOffset: entry.logStartOffset,
      lastStableOffset: lso,
      batches,
      abortedTransactions:
        readCommitted && batches.length > 0
          ? (this.q.abortedBetween.all(entry.id, fetchOffset, lastReturned) as AbortedTransaction[])
          : [],
    };
  }

  /** Forgets the partition's cached batches: call when stored batches change other than by append (compaction). */
  dropTail(entry: PartitionEntry): void {
    if (entry.tail) this.tailCache.clear(entry.tail);
  }

  /** Forgets the cached batches of every partition of a topic (being deleted). */
  dropTopicTails(topic: string): void {
    for (let p = 0, entry; (entry = this.topics.partition(topic, p)); p++) this.dropTail(entry);
  }

  /** The partition's last stable offset, from the cached open transactions (txn-rules.ts). */
  lastStableOffset(entry: PartitionEntry): number {
    return lastStableOffset(entry.openTxns.values(), entry.highWatermark, entry.logStartOffset);
  }

  /**
   * Appends a COMMIT/ABORT marker (control-batch.ts) at the high watermark and ends the producer's
   * open transaction in the partition; an abort records its range (Kafka's .txnindex). Call inside
   * the endTransaction's transaction.
   */
  appendMarker(entry: PartitionEntry, row: BatchRow, commit: boolean): void {
    this.insertRow(entry, row);
    this.setOffsets(entry, entry.logStartOffset, row.lastOffset + 1, row.size);
    this.q.setOffsets.run(entry.logStartOffset, entry.highWatermark, entry.id);
    const state = stateAfterMarker(this.producers.state(entry.id, row.producerId), row.producerEpoch);
    if (state) this.producers.save(entry.id, row.producerId, state);
    const first = entry.openTxns.get(row.producerId);
    if (first === undefined) return;
    if (!commit) this.q.insertAborted.run(entry.id, row.producerId, first, row.lastOffset);
    this.q.deleteOpen.run(entry.id, row.producerId);
    entry.openTxns.delete(row.producerId);
    this.tx.onRollback(() => entry.openTxns.set(row.producerId, first));
  }

  /** The first transactional batch of a producer's transaction in a partition opens it there. */
  private openTxn(entry: PartitionEntry, producerId: number, firstOffset: number): void {
    if (entry.openTxns.has(producerId)) return;
    this.q.insertOpen.run(entry.id, producerId, firstOffset);
    entry.openTxns.set(producerId, firstOffset);
    this.tx.onRollback(() => entry.openTxns.delete(producerId));
  }

  /** What the append check needs of a producer's transaction (none: not a transactional producer). */
  private producerTxn(producerId: number, partitionId: number) {
    const t = this.q.txnOfProducer.get(partitionId, producerId) as
      { epoch: number; state: TransactionState; added: number } | undefined;
    return t && { producerEpoch: t.epoch, state: t.state, partitionAdded: t.added === 1 };
  }

  offsets(topic: string, partition: number) {
    const entry = this.topics.partition(topic, partition);
    return entry && { logStartOffset: entry.logStartOffset, highWatermark: entry.highWatermark };
  }

  batchForTimestamp(topic: string, partition: number, timestampMs: number): StoredBatch | undefined {
    const entry = this.topics.partition(topic, partition);
    const base = entry && (this.q.firstAtTimestamp.get(entry.id, timestampMs) as number | undefined);
    return base === undefined ? undefined : this.batchAt(entry!.id, base);
  }

  batchWithMaxTimestamp(topic: string, partition: number): StoredBatch | undefined {
    const entry = this.topics.partition(topic, partition);
    const base = entry && (this.q.maxTimestamp.get(entry.id) as number | undefined);
    return base === undefined ? undefined : this.batchAt(entry!.id, base);
  }

  /** DeleteRecords; returns the bytes freed too, so the caller can reclaim pages. */
  deleteRecords(topic: string, partition: number, offset: number): DeleteRecordsResult & { deletedBytes: number } {
    const entry = this.topics.partition(topic, partition);
    if (!entry)
      return {
        errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        logStartOffset: -1,
        highWatermark: -1,
        deletedBytes: 0,
      };
    const target = deleteRecordsTarget(entry, offset);
    let deletedBytes = 0;
    if (target.errorCode === ErrorCode.NONE && target.logStartOffset > entry.logStartOffset) {
      this.tx.run(() => {
        deletedBytes = this.deleteBelow(entry, target.logStartOffset, target.logStartOffset).bytes;
      });
    }
    return {
      errorCode: target.errorCode,
      logStartOffset: entry.logStartOffset,
      highWatermark: entry.highWatermark,
      deletedBytes,
    };
  }

  /**
   * Deletes the whole batches ending below `endOffset` and moves the log start to `logStartOffset`;
   * also forgets producers with nothing left in the log. Call inside a transaction.
   */
  deleteBelow(entry: PartitionEntry, endOffset: number, logStartOffset: number): { batches: number; bytes: number } {
    const sizes = this.q.deleteBelow.all(entry.id, endOffset, endOffset) as number[];
    if (entry.tail) this.tailCache.dropBelow(entry.tail, endOffset);
    const bytes = sizes.reduce((a, b) => a + b, 0);
    this.setOffsets(entry, Math.max(entry.logStartOffset, logStartOffset), entry.highWatermark, -bytes);
    this.q.setOffsets.run(entry.logStartOffset, entry.highWatermark, entry.id);
    this.producers.evict(entry.id, entry.logStartOffset);
    // As Kafka drops .txnindex entries with their segments: ranges wholly below the log start go.
    this.q.deleteAbortedBelow.run(entry.id, entry.logStartOffset);
    return { batches: sizes.length, bytes };
  }

  /** Bytes stored for a partition by name; undefined for an unknown topic or partition. */
  partitionSize(topic: string, partition: number): number | undefined {
    const entry = this.topics.partition(topic, partition);
    return entry && this.partitionBytes(entry);
  }

  /** The partition's size in bytes, loaded once and then kept up to date. */
  partitionBytes(entry: PartitionEntry): number {
    if (entry.bytes === undefined) {
      entry.bytes = this.q.bytes.get(entry.id) as number;
      this.tx.onRollback(() => (entry.bytes = undefined)); // it may have counted uncommitted rows
    }
    return entry.bytes;
  }

  /** Stores a batch and caches it as the partition's newest (forgotten again if the transaction rolls back). */
  private insertRow(entry: PartitionEntry, r: BatchRow): void {
    this.q.insert.run(
      entry.id,
      r.baseOffset,
      r.lastOffset,
      r.recordCount,
      r.maxTimestamp,
      r.producerId,
      r.producerEpoch,
      r.baseSequence,
      r.size,
      r.data,
    );
    const tail = (entry.tail ??= new PartitionTail());
    this.tailCache.append(tail, r.baseOffset, r.lastOffset, r.data);
    // One undo per partition, made once and registered per row (clearing twice is harmless).
    this.tx.onRollback((tail.clearOnRollback ??= () => this.tailCache.clear(tail)));
  }

  private batchAt(partitionId: number, baseOffset: number): StoredBatch | undefined {
    return this.q.byBaseOffset.get(partitionId, baseOffset) as StoredBatch | undefined;
  }

  /** Changes the cached offsets (the caller writes the row), restoring them on rollback. */
  private setOffsets(entry: PartitionEntry, logStartOffset: number, highWatermark: number, bytesDelta: number): void {
    const before = { logStartOffset: entry.logStartOffset, highWatermark: entry.highWatermark, bytes: entry.bytes };
    this.tx.onRollback(() => Object.assign(entry, before));
    entry.logStartOffset = logStartOffset;
    entry.highWatermark = highWatermark;
    if (entry.bytes !== undefined) entry.bytes += bytesDelta;
  }
}

function failed(errorCode: number, logStartOffset: number, errorMessage: string): PartitionAppendResult {
  return { errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset, errorMessage };
}
