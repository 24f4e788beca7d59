// The sqlite:// engine's side of the compactor (compaction/cleaner.ts): its partitions as a
// CleanerLog. Each apply is one short write transaction (a step's slice); reads outside one see
// the last committed state, and produce only appends past the range being cleaned.
import type Database from 'better-sqlite3';
import type { BatchChange, CleanerBatch, CleanerCheckpoint, CleanerLog } from '../compaction/cleaner';
import { cleanerView } from '../compaction/cleaner-rules';
import type { RangeQueries } from '../compaction/cleaner-rules';
import type { AbortedTransaction } from '../storage';
import { decodeEntries } from './producers';
import type { Records } from './records';
import type { Topics } from './topics';
import type { Transactor } from './transaction';

export class SqliteCleanerLog implements CleanerLog {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
    private readonly topics: Topics,
    private readonly records: Records,
    private readonly reclaimPages: (freedBytes: number) => void,
  ) {
    this.q = {
      bytesBetween: db
        .prepare(
          'SELECT coalesce(sum(size), 0) FROM record_batch WHERE partition_id = ? AND base_offset >= ? AND base_offset < ?',
        )
        .pluck(),
      // The floor batch only (checked in JS): with last_offset in the WHERE, an offset in a gap
      // would scan every older row.
      floor: db.prepare(
        'SELECT base_offset AS baseOffset, last_offset AS lastOffset FROM record_batch WHERE partition_id = ? AND base_offset <= ? ORDER BY base_offset DESC LIMIT 1',
      ),
      firstNewerThan: db
        .prepare(
          'SELECT base_offset FROM record_batch WHERE partition_id = ? AND base_offset >= ? AND max_timestamp > ? ORDER BY base_offset LIMIT 1',
        )
        .pluck(),
      firstFrom: db.prepare(
        'SELECT base_offset AS baseOffset, max_timestamp AS maxTimestamp FROM record_batch WHERE partition_id = ? AND base_offset >= ? ORDER BY base_offset LIMIT 1',
      ),
      batches: db.prepare(
        `SELECT base_offset AS baseOffset, last_offset AS lastOffset, record_count AS recordCount,
           max_timestamp AS maxTimestamp, producer_id AS producerId, producer_epoch AS producerEpoch,
           base_sequence AS baseSequence, size, data, delete_horizon_ms AS deleteHorizonMs
         FROM record_batch WHERE partition_id = ? AND base_offset >= ? AND base_offset < ? ORDER BY base_offset`,
      ),
      aborted: db.prepare(
        'SELECT producer_id AS producerId, first_offset AS firstOffset, last_offset AS lastOffset FROM aborted_txn WHERE partition_id = ?',
      ),
      producerBatches: db.prepare('SELECT batches FROM producer_partition WHERE partition_id = ?').pluck(),
      delete: db.prepare('DELETE FROM record_batch WHERE partition_id = ? AND base_offset = ? RETURNING size').pluck(),
      horizon: db.prepare('UPDATE record_batch SET delete_horizon_ms = ? WHERE partition_id = ? AND base_offset = ?'),
      size: db.prepare('SELECT size FROM record_batch WHERE partition_id = ? AND base_offset = ?').pluck(),
      rewrite: db.prepare(
        `UPDATE record_batch SET data = ?, size = ?, record_count = ?, max_timestamp = ?, delete_horizon_ms = ?
         WHERE partition_id = ? AND base_offset = ?`,
      ),
      checkpoint: db.prepare(
        `INSERT INTO log_cleaner (partition_id, clean_offset, last_cleaned_ms, bytes_before, bytes_after, next_horizon_ms)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET clean_offset = excluded.clean_offset, last_cleaned_ms = excluded.last_cleaned_ms,
           bytes_before = excluded.bytes_before, bytes_after = excluded.bytes_after, next_horizon_ms = excluded.next_horizon_ms`,
      ),
      lastCheckpoint: db.prepare(
        `SELECT clean_offset AS cleanOffset, last_cleaned_ms AS lastCleanedMs, bytes_before AS bytesBefore,
           bytes_after AS bytesAfter, next_horizon_ms AS nextHorizonMs FROM log_cleaner WHERE partition_id = ?`,
      ),
    };
  }

  *partitions() {
    for (const t of this.topics.list()) {
      for (let p = 0; p < t.partitionCount; p++)
        yield { topic: t.name, partition: p, topicId: t.topicId, configs: t.configs };
    }
  }

  private id(topic: string, partition: number): number {
    return this.topics.partition(topic, partition)?.id ?? -1;
  }

  view(topic: string, partition: number) {
    const info = this.topics.get(topic);
    const entry = this.topics.partition(topic, partition);
    if (!info || !entry) return undefined;
    return {
      topicId: info.topicId,
      configs: info.configs,
      logStartOffset: entry.logStartOffset,
      highWatermark: entry.highWatermark,
      lastStableOffset: this.records.lastStableOffset(entry),
      ...cleanerView(this.lastCheckpoint(topic, partition)),
    };
  }

  rangeQueries(topic: string, partition: number): RangeQueries {
    const id = this.id(topic, partition);
    return {
      bytesBetween: (from, to) => this.q.bytesBetween.get(id, from, to) as number,
      holding: (offset) => {
        const b = this.q.floor.get(id, offset) as { baseOffset: number; lastOffset: number } | undefined;
        return b && b.lastOffset >= offset ? b.baseOffset : undefined;
      },
      firstNewerThan: (from, ts) => this.q.firstNewerThan.get(id, from, ts) as number | undefined,
      firstFrom: (from) => this.q.firstFrom.get(id, from) as { baseOffset: number; maxTimestamp: number } | undefined,
    };
  }

  batches(
    topic: string,
    partition: number,
    from: number,
    to: number,
    maxBytes: number,
    maxCount: number,
  ): CleanerBatch[] {
    const out: CleanerBatch[] = [];
    let bytes = 0;
    for (const row of this.q.batches.iterate(this.id(topic, partition), from, to) as IterableIterator<CleanerBatch>) {
      if (out.length > 0 && (bytes >= maxBytes || out.length >= maxCount)) break; // leaving the loop resets the statement
      out.push(row);
      bytes += row.size;
    }
    return out;
  }

  aborted(topic: string, partition: number): AbortedTransaction[] {
    return this.q.aborted.all(this.id(topic, partition)) as AbortedTransaction[];
  }

  producerNewestBatches(topic: string, partition: number): Set<number> {
    const out = new Set<number>();
    for (const blob of this.q.producerBatches.all(this.id(topic, partition)) as Buffer[]) {
      const entries = decodeEntries(blob);
      const newest = entries[entries.length - 1];
      if (newest) out.add(newest.baseOffset);
    }
    return out;
  }

  apply(topic: string, partition: number, changes: readonly BatchChange[]): number {
    const entry = this.topics.partition(topic, partition);
    if (!entry) return 0;
    // Batches rewritten or deleted: the tail cache forgets the partition rather than follow them.
    if (changes.some((c) => c.kind !== 'horizon')) this.records.dropTail(entry);
    return this.tx.run(() => {
      let freed = 0;
      for (const c of changes) {
        if (c.kind === 'delete') {
          const size = this.q.delete.get(entry.id, c.baseOffset) as number | undefined;
          freed += size ?? 0;
        } else if (c.kind === 'horizon') {
          this.q.horizon.run(c.deleteHorizonMs, entry.id, c.baseOffset);
        } else {
          const size = this.q.size.get(entry.id, c.baseOffset) as number | undefined;
          if (size === undefined) continue; // gone meanwhile (retention, DeleteRecords)
          this.q.rewrite.run(
            c.data,
            c.data.length,
            c.recordCount,
            c.maxTimestamp,
            c.deleteHorizonMs,
            entry.id,
            c.baseOffset,
          );
          freed += size - c.data.length;
        }
      }
      if (entry.bytes !== undefined) {
        const before = entry.bytes;
        this.tx.onRollback(() => (entry.bytes = before));
        entry.bytes -= freed;
      }
      return freed;
    });
  }

  checkpoint(topic: string, partition: number, c: CleanerCheckpoint): void {
    const id = this.id(topic, partition);
    if (id < 0) return;
    this.tx.run(() =>
      this.q.checkpoint.run(id, c.cleanOffset, c.lastCleanedMs, c.bytesBefore, c.bytesAfter, c.nextHorizonMs),
    );
  }

  lastCheckpoint(topic: string, partition: number): CleanerCheckpoint | undefined {
    return this.q.lastCheckpoint.get(this.id(topic, partition)) as CleanerCheckpoint | undefined;
  }

  reclaim(freedBytes: number): void {
    if (freedBytes > 0) this.reclaimPages(freedBytes);
  }
}
