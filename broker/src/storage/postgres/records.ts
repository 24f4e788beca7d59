// Reading the log on PostgreSQL: fetches, offsets, the last stable offset, timestamp lookups and
// sizes. No locks and no cache: each answer comes from one statement (one snapshot), so the high
// watermark, last stable offset and batches agree even while other brokers append.
import { ErrorCode } from '../../protocol/error-codes';
import { checkFetchOffset, unknownPartitionRead } from '../log-rules';
import type { AbortedTransaction, PartitionOffsets, ReadResult, StoredBatch } from '../storage';
import { prepared } from './db';
import type { Db } from './db';

/** A v2 batch is at least its 61-byte header: more than maxBytes / 61 + 1 batches never fit. */
const MIN_BATCH_BYTES = 61;
/**
 * Batches one fetch considers at most (their sizes, not their bytes): bounds the scan of a
 * tiny-batch log. Measured: 1000 batches' sizes cost ~6 ms, 17000 ~60 ms (the scan and the running
 * sum). A consumer of tiny batches gets 1000 per partition per fetch, then fetches again.
 */
const READ_ROW_LIMIT = 1000;

/**
 * The partition's offsets and last stable offset (Kafka's firstUnstableOffset: the first offset of
 * the oldest open transaction, else the high watermark; never below the log start offset).
 */
const PARTITION_STATE_SQL = `SELECT p.id, p.high_watermark AS hw, p.log_start_offset AS ls,
    greatest(p.log_start_offset, least(p.high_watermark,
      coalesce((SELECT min(o.first_offset) FROM open_txn o WHERE o.partition_id = p.id), p.high_watermark))) AS lso
  FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = $1 AND p.partition_index = $2`;
const OFFSETS = prepared(
  'offsets',
  `SELECT p.log_start_offset AS ls, p.high_watermark AS hw FROM partition p JOIN topic t ON t.id = p.topic_id
       WHERE t.name = $1 AND p.partition_index = $2`,
);
const PARTITION_STATE = prepared('partition_state', PARTITION_STATE_SQL);

interface StateRow {
  id: number;
  hw: number;
  ls: number;
  lso: number;
}

interface ReadRow extends StateRow {
  base_offset: number | null;
  last_offset: number | null;
  data: Buffer | null;
}

// One statement: the partition's state, where the fetch starts (the batch holding fetchOffset),
// the sizes of the next batches with their running total, and the bytes of those that fit
// (KIP-74: the first whatever its size when $5 (minOneBatch)); with read_committed ($6) only
// batches ending below the last stable offset. Only the chosen batches' data is read.
const READ = prepared(
  'read',
  `WITH s AS MATERIALIZED (${PARTITION_STATE_SQL}),
  f AS MATERIALIZED (
    SELECT coalesce((SELECT CASE WHEN b.last_offset >= $3 THEN b.base_offset ELSE $3 END
                     FROM record_batch b WHERE b.partition_id = s.id AND b.base_offset <= $3
                     ORDER BY b.base_offset DESC LIMIT 1), $3) AS start
    FROM s
  ),
  sizes AS (
    SELECT c.base_offset, sum(c.size) OVER w AS running, row_number() OVER w AS n
    FROM (SELECT b.base_offset, b.size FROM record_batch b
          WHERE b.partition_id = (SELECT id FROM s) AND b.base_offset >= (SELECT start FROM f)
            AND b.base_offset < (SELECT hw FROM s)
            AND (NOT $6::boolean OR b.last_offset < (SELECT lso FROM s))
          ORDER BY b.base_offset LIMIT $7) c
    WINDOW w AS (ORDER BY c.base_offset ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
  ),
  chosen AS (
    SELECT b.base_offset, b.last_offset, b.data FROM sizes JOIN record_batch b
      ON b.partition_id = (SELECT id FROM s) AND b.base_offset = sizes.base_offset
    WHERE sizes.running <= $4 OR (sizes.n = 1 AND $5::boolean)
  )
  SELECT s.id, s.hw, s.ls, s.lso, c.base_offset, c.last_offset, c.data
  FROM s LEFT JOIN chosen c ON true
  ORDER BY c.base_offset`,
);

const STORED_BATCH =
  'b.base_offset AS "baseOffset", b.last_offset AS "lastOffset", b.max_timestamp AS "maxTimestamp", b.data';
const BY_PARTITION =
  'JOIN partition p ON p.id = b.partition_id JOIN topic t ON t.id = p.topic_id WHERE t.name = $1 AND p.partition_index = $2';

export class Records {
  constructor(private readonly db: Db) {}

  async read(
    topic: string,
    partition: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch = true,
    readCommitted = false,
  ): Promise<ReadResult> {
    const rows = await this.db.query<ReadRow>(READ, [
      topic,
      partition,
      fetchOffset,
      maxBytes,
      minOneBatch,
      readCommitted,
      Math.min(READ_ROW_LIMIT, Math.floor(Math.max(0, maxBytes) / MIN_BATCH_BYTES) + 1),
    ]);
    const state = rows[0];
    if (!state) return unknownPartitionRead();
    const offsets = { logStartOffset: state.ls, highWatermark: state.hw };
    const empty = checkFetchOffset(offsets, fetchOffset, state.lso, readCommitted);
    if (empty) return empty;
    const batches: Buffer[] = [];
    let lastReturned = -1;
    for (const r of rows) {
      if (r.data === null) continue;
      batches.push(r.data);
      lastReturned = r.last_offset!;
    }
    return {
      errorCode: ErrorCode.NONE,
      highWatermark: state.hw,
      logStartOffset: state.ls,
      lastStableOffset: state.lso,
      batches,
      abortedTransactions:
        readCommitted && batches.length > 0 ? await this.abortedBetween(state.id, fetchOffset, lastReturned) : [],
    };
  }

  /** Kafka's collectAbortedTransactions over aborted_txn (its .txnindex). */
  private async abortedBetween(partitionId: number, from: number, to: number): Promise<AbortedTransaction[]> {
    return this.db.query<AbortedTransaction>(
      `SELECT producer_id AS "producerId", first_offset AS "firstOffset", last_offset AS "lastOffset" FROM aborted_txn
       WHERE partition_id = $1 AND last_offset >= $2 AND first_offset <= $3 ORDER BY first_offset, last_offset`,
      [partitionId, from, to],
    );
  }

  async offsets(topic: string, partition: number): Promise<PartitionOffsets | undefined> {
    const [row] = await this.db.query<{ ls: number; hw: number }>(OFFSETS, [topic, partition]);
    return row && { logStartOffset: row.ls, highWatermark: row.hw };
  }

  /** A query, not a cache: another broker's transaction may have opened or ended meanwhile. */
  async lastStableOffset(topic: string, partition: number): Promise<number | undefined> {
    const [row] = await this.db.query<StateRow>(PARTITION_STATE, [topic, partition]);
    return row?.lso;
  }

  async partitionBytes(topic: string, partition: number): Promise<number | undefined> {
    const [row] = await this.db.query<{ bytes: number }>(
      `SELECT (SELECT coalesce(sum(b.size), 0) FROM record_batch b WHERE b.partition_id = p.id) AS bytes
       FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = $1 AND p.partition_index = $2`,
      [topic, partition],
    );
    return row?.bytes;
  }

  /** No index on max_timestamp (as sqlite): ListOffsets by time is rare, an index costs every insert. */
  async batchForTimestamp(topic: string, partition: number, timestampMs: number): Promise<StoredBatch | undefined> {
    const [row] = await this.db.query<StoredBatch>(
      `SELECT ${STORED_BATCH} FROM record_batch b ${BY_PARTITION} AND b.max_timestamp >= $3 ORDER BY b.base_offset LIMIT 1`,
      [topic, partition, timestampMs],
    );
    return row;
  }

  async batchWithMaxTimestamp(topic: string, partition: number): Promise<StoredBatch | undefined> {
    const [row] = await this.db.query<StoredBatch>(
      `SELECT ${STORED_BATCH} FROM record_batch b ${BY_PARTITION} ORDER BY b.max_timestamp DESC, b.base_offset LIMIT 1`,
      [topic, partition],
    );
    return row;
  }
}
