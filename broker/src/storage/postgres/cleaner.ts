// The postgres:// engine's side of the compactor (compaction/cleaner.ts): its partitions as a
// CleanerLog whose calls answer with Promises. Several brokers may share the database, so two
// cleaners could pick the same partition: each slice write (apply) takes a transaction-level
// advisory lock on the partition with pg_try_advisory_xact_lock and, if another broker holds it,
// gives the pass up (PartitionBusy); and each change is applied only if the batch still has the
// size this cleaner read (another pass rewrote it meanwhile: skipped). docs/postgres.md says why.
// Freed space is PostgreSQL's (autovacuum): reclaim is a no-op.
import type { BatchChange, CleanerBatch, CleanerCheckpoint, CleanerLog } from '../compaction/cleaner';
import { PartitionBusy } from '../compaction/cleaner';
import { cleanerView } from '../compaction/cleaner-rules';
import type { RangeQueries } from '../compaction/cleaner-rules';
import { decodeEntries } from '../sqlite/producers';
import type { AbortedTransaction } from '../storage';
import { lastStableOffset } from '../txn-rules';
import type { Db } from './db';

/** The advisory lock namespace (first int4 key) of partitions being cleaned; the second is the partition id. */
const CLEANER_LOCK_SPACE = 0x636c6e; // "cln"

const CHECKPOINT_COLUMNS = `clean_offset AS "cleanOffset", last_cleaned_ms AS "lastCleanedMs",
  bytes_before AS "bytesBefore", bytes_after AS "bytesAfter", next_horizon_ms AS "nextHorizonMs"`;

interface ViewRow {
  id: number;
  topicId: string;
  configs: Record<string, string> | null;
  logStartOffset: number;
  highWatermark: number;
  openFirst: number | null;
}

export class PgCleanerLog implements CleanerLog {
  /** topic\0partition -> partition id, as of the last view (always the first call of a step). */
  private readonly ids = new Map<string, number>();
  /** partition id -> base offset -> size, of the batches the last batches() call read. */
  private readonly readSizes = new Map<number, Map<number, number>>();

  constructor(private readonly db: Db) {}

  async partitions() {
    return this.db.query<{ topic: string; partition: number; topicId: string; configs: Record<string, string> }>(
      `SELECT t.name AS topic, p.partition_index AS partition, t.topic_uuid AS "topicId",
         coalesce((SELECT jsonb_object_agg(c.name, c.value) FROM topic_config c WHERE c.topic_id = t.id), '{}') AS configs
       FROM partition p JOIN topic t ON t.id = p.topic_id ORDER BY t.name COLLATE "C", p.partition_index`,
    );
  }

  async view(topic: string, partition: number) {
    const [[row], last] = await Promise.all([
      this.db.query<ViewRow>(
        `SELECT p.id, t.topic_uuid AS "topicId", p.log_start_offset AS "logStartOffset", p.high_watermark AS "highWatermark",
           (SELECT jsonb_object_agg(c.name, c.value) FROM topic_config c WHERE c.topic_id = t.id) AS configs,
           (SELECT min(o.first_offset) FROM open_txn o WHERE o.partition_id = p.id) AS "openFirst"
         FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = $1 AND p.partition_index = $2`,
        [topic, partition],
      ),
      this.lastCheckpoint(topic, partition),
    ]);
    const key = `${topic}\0${partition}`;
    if (!row) {
      this.ids.delete(key);
      return undefined;
    }
    this.ids.set(key, row.id);
    return {
      topicId: row.topicId,
      configs: row.configs ?? {},
      logStartOffset: row.logStartOffset,
      highWatermark: row.highWatermark,
      lastStableOffset: lastStableOffset(
        row.openFirst === null ? [] : [row.openFirst],
        row.highWatermark,
        row.logStartOffset,
      ),
      ...cleanerView(last),
    };
  }

  private id(topic: string, partition: number): number {
    return this.ids.get(`${topic}\0${partition}`) ?? -1;
  }

  rangeQueries(topic: string, partition: number): RangeQueries {
    const id = this.id(topic, partition);
    const one = async <R extends object>(sql: string, values: unknown[]): Promise<R | undefined> =>
      (await this.db.query<R>(sql, [id, ...values]))[0];
    return {
      bytesBetween: async (from, to) =>
        (await one<{ n: number }>(
          'SELECT coalesce(sum(size), 0) AS n FROM record_batch WHERE partition_id = $1 AND base_offset >= $2 AND base_offset < $3',
          [from, to],
        ))!.n,
      holding: async (offset) => {
        const b = await one<{ baseOffset: number; lastOffset: number }>(
          `SELECT base_offset AS "baseOffset", last_offset AS "lastOffset" FROM record_batch
           WHERE partition_id = $1 AND base_offset <= $2 ORDER BY base_offset DESC LIMIT 1`,
          [offset],
        );
        return b && b.lastOffset >= offset ? b.baseOffset : undefined;
      },
      firstNewerThan: async (from, ts) =>
        (
          await one<{ b: number }>(
            `SELECT base_offset AS b FROM record_batch WHERE partition_id = $1 AND base_offset >= $2 AND max_timestamp > $3
             ORDER BY base_offset LIMIT 1`,
            [from, ts],
          )
        )?.b,
      firstFrom: (from) =>
        one<{ baseOffset: number; maxTimestamp: number }>(
          `SELECT base_offset AS "baseOffset", max_timestamp AS "maxTimestamp" FROM record_batch
           WHERE partition_id = $1 AND base_offset >= $2 ORDER BY base_offset LIMIT 1`,
          [from],
        ),
    };
  }

  async batches(
    topic: string,
    partition: number,
    from: number,
    to: number,
    maxBytes: number,
    maxCount: number,
  ): Promise<CleanerBatch[]> {
    const id = this.id(topic, partition);
    // Rows while the sizes before them stay under maxBytes (at least one), at most maxCount.
    const rows = await this.db.query<CleanerBatch & { before: number }>(
      `SELECT * FROM (
         SELECT base_offset AS "baseOffset", last_offset AS "lastOffset", record_count AS "recordCount",
           max_timestamp AS "maxTimestamp", producer_id AS "producerId", producer_epoch AS "producerEpoch",
           base_sequence AS "baseSequence", size, data, delete_horizon_ms AS "deleteHorizonMs",
           sum(size) OVER (ORDER BY base_offset) - size AS before
         FROM record_batch WHERE partition_id = $1 AND base_offset >= $2 AND base_offset < $3
         ORDER BY base_offset LIMIT $4
       ) x WHERE before = 0 OR before < $5 ORDER BY "baseOffset"`,
      [id, from, to, Math.max(1, maxCount), maxBytes],
    );
    this.readSizes.set(id, new Map(rows.map((r) => [r.baseOffset, r.size])));
    return rows.map(({ before: _before, ...row }) => row);
  }

  async aborted(topic: string, partition: number): Promise<AbortedTransaction[]> {
    return this.db.query<AbortedTransaction>(
      `SELECT producer_id AS "producerId", first_offset AS "firstOffset", last_offset AS "lastOffset"
       FROM aborted_txn WHERE partition_id = $1`,
      [this.id(topic, partition)],
    );
  }

  async producerNewestBatches(topic: string, partition: number): Promise<Set<number>> {
    const rows = await this.db.query<{ batches: Buffer }>(
      'SELECT batches FROM producer_partition WHERE partition_id = $1',
      [this.id(topic, partition)],
    );
    const out = new Set<number>();
    for (const { batches } of rows) {
      const entries = decodeEntries(batches);
      const newest = entries[entries.length - 1];
      if (newest) out.add(newest.baseOffset);
    }
    return out;
  }

  async apply(topic: string, partition: number, changes: readonly BatchChange[]): Promise<number> {
    const id = this.id(topic, partition);
    if (id < 0) return 0;
    const sizes = this.readSizes.get(id) ?? new Map<number, number>();
    const size = (baseOffset: number) => sizes.get(baseOffset) ?? -1;
    const deletes = changes.filter((c) => c.kind === 'delete');
    const horizons = changes.filter((c) => c.kind === 'horizon');
    const rewrites = changes.filter((c) => c.kind === 'rewrite');
    return this.db.tx(async (q) => {
      const [lock] = await q.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [
        CLEANER_LOCK_SPACE,
        id % 2147483647,
      ]);
      if (!lock?.locked) throw new PartitionBusy(`${topic}-${partition} is being cleaned by another broker`);
      // Row locks in offset order first, the order retention and DeleteRecords delete in: the
      // statements below touch the rows in whatever order their plans take.
      await q.query(
        `SELECT 1 FROM record_batch WHERE partition_id = $1 AND base_offset = ANY($2::bigint[])
         ORDER BY base_offset FOR UPDATE`,
        [id, changes.map((c) => c.baseOffset)],
      );
      let freed = 0;
      if (deletes.length > 0) {
        const gone = await q.query<{ size: number }>(
          `DELETE FROM record_batch r USING unnest($2::bigint[], $3::int[]) AS u(b, s)
           WHERE r.partition_id = $1 AND r.base_offset = u.b AND r.size = u.s RETURNING r.size`,
          [id, deletes.map((c) => c.baseOffset), deletes.map((c) => size(c.baseOffset))],
        );
        for (const g of gone) freed += g.size;
      }
      if (horizons.length > 0)
        await q.query(
          `UPDATE record_batch r SET delete_horizon_ms = u.h FROM unnest($2::bigint[], $3::int[], $4::bigint[]) AS u(b, s, h)
           WHERE r.partition_id = $1 AND r.base_offset = u.b AND r.size = u.s`,
          [
            id,
            horizons.map((c) => c.baseOffset),
            horizons.map((c) => size(c.baseOffset)),
            horizons.map((c) => c.deleteHorizonMs),
          ],
        );
      if (rewrites.length > 0) {
        const done = await q.query<{ freed: number }>(
          `UPDATE record_batch r SET data = u.d, size = octet_length(u.d), record_count = u.c, max_timestamp = u.t,
             delete_horizon_ms = u.h
           FROM unnest($2::bigint[], $3::int[], $4::bytea[], $5::int[], $6::bigint[], $7::bigint[]) AS u(b, s, d, c, t, h)
           WHERE r.partition_id = $1 AND r.base_offset = u.b AND r.size = u.s RETURNING u.s - r.size AS freed`,
          [
            id,
            rewrites.map((c) => c.baseOffset),
            rewrites.map((c) => size(c.baseOffset)),
            rewrites.map((c) => c.data),
            rewrites.map((c) => c.recordCount),
            rewrites.map((c) => c.maxTimestamp),
            rewrites.map((c) => c.deleteHorizonMs),
          ],
        );
        for (const d of done) freed += d.freed;
      }
      return freed;
    });
  }

  async checkpoint(topic: string, partition: number, c: CleanerCheckpoint): Promise<void> {
    const id = this.id(topic, partition);
    if (id < 0) return;
    // INSERT ... SELECT: a partition deleted meanwhile gets no row (its foreign key would refuse it).
    await this.db.query(
      `INSERT INTO log_cleaner (partition_id, clean_offset, last_cleaned_ms, bytes_before, bytes_after, next_horizon_ms)
       SELECT id, $2, $3, $4, $5, $6 FROM partition WHERE id = $1
       ON CONFLICT (partition_id) DO UPDATE SET clean_offset = excluded.clean_offset,
         last_cleaned_ms = excluded.last_cleaned_ms, bytes_before = excluded.bytes_before,
         bytes_after = excluded.bytes_after, next_horizon_ms = excluded.next_horizon_ms`,
      [id, c.cleanOffset, c.lastCleanedMs, c.bytesBefore, c.bytesAfter, c.nextHorizonMs],
    );
  }

  async lastCheckpoint(topic: string, partition: number): Promise<CleanerCheckpoint | undefined> {
    const [row] = await this.db.query<CleanerCheckpoint>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM log_cleaner l JOIN partition p ON p.id = l.partition_id
       JOIN topic t ON t.id = p.topic_id WHERE t.name = $1 AND p.partition_index = $2`,
      [topic, partition],
    );
    return row;
  }

  reclaim(): void {
    // PostgreSQL's autovacuum reuses the space of deleted and rewritten rows.
  }
}
