// The writes every log change shares on PostgreSQL (appends here, markers and cleaning in
// transactions.ts / cleaner.ts): locking partitions in one order, producer states, inserting
// batch rows, moving high watermarks and telling the other brokers (NOTIFY). Each takes the
// transaction's Queryable: call inside Db.tx.
import { producerLastOffset } from '../log-rules';
import type { BatchRow } from '../append-plan';
import type { ProducerPartitionState } from '../producer-state';
import { decodeEntries, encodeEntries } from '../sqlite/producers';
import type { Queryable } from './db';

/** A partition row locked by lockPartitions: its offsets as of the lock. */
export interface LockedPartition {
  id: number;
  topic: string;
  topicId: string;
  partition: number;
  logStartOffset: number;
  highWatermark: number;
}

/** The channel appends NOTIFY on (payload: appendNotice), consumed by the cluster's LISTEN. */
export const APPEND_CHANNEL = 'minnow_append';

/** One NOTIFY payload: a partition's new high watermark after a committed append. */
export interface AppendNotice {
  topic: string;
  topicId: string;
  partition: number;
  highWatermark: number;
}

export function parseAppendNotice(payload: string): AppendNotice | undefined {
  try {
    const n = JSON.parse(payload) as Partial<AppendNotice>;
    if (typeof n.topic !== 'string' || typeof n.partition !== 'number' || typeof n.highWatermark !== 'number')
      return undefined;
    return { topic: n.topic, topicId: String(n.topicId ?? ''), partition: n.partition, highWatermark: n.highWatermark };
  } catch {
    return undefined;
  }
}

/**
 * Locks the named partitions' rows (FOR UPDATE) in partition id order, the one order every broker
 * uses, so two brokers' transactions cannot deadlock. Unknown partitions are absent from the map
 * (key: `topic\0partition`).
 */
export async function lockPartitions(
  q: Queryable,
  keys: readonly { topic: string; partition: number }[],
): Promise<Map<string, LockedPartition>> {
  const rows = await q.query<LockedPartition>(
    `SELECT p.id, t.name AS topic, t.topic_uuid AS "topicId", p.partition_index AS partition,
            p.log_start_offset AS "logStartOffset", p.high_watermark AS "highWatermark"
     FROM partition p JOIN topic t ON t.id = p.topic_id
     JOIN unnest($1::text[], $2::int[]) AS u(name, idx) ON t.name = u.name AND p.partition_index = u.idx
     ORDER BY p.id FOR UPDATE OF p`,
    [keys.map((k) => k.topic), keys.map((k) => k.partition)],
  );
  return new Map(rows.map((r) => [partitionKey(r.topic, r.partition), r]));
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\0${partition}`;
}

/** Producer states of the given (partition id, producer id) pairs; key `partitionId:producerId`. */
export async function loadProducerStates(
  q: Queryable,
  pairs: readonly { partitionId: number; producerId: number }[],
): Promise<Map<string, ProducerPartitionState>> {
  const states = new Map<string, ProducerPartitionState>();
  if (pairs.length === 0) return states;
  const rows = await q.query<{ partition_id: number; producer_id: number; epoch: number; batches: Buffer }>(
    `SELECT s.partition_id, s.producer_id, s.epoch, s.batches FROM producer_partition s
     JOIN unnest($1::bigint[], $2::bigint[]) AS u(pa, pr) ON s.partition_id = u.pa AND s.producer_id = u.pr`,
    [pairs.map((p) => p.partitionId), pairs.map((p) => p.producerId)],
  );
  for (const r of rows)
    states.set(stateKey(r.partition_id, r.producer_id), { producerEpoch: r.epoch, batches: decodeEntries(r.batches) });
  return states;
}

export function stateKey(partitionId: number, producerId: number): string {
  return `${partitionId}:${producerId}`;
}

/** Upserts producer states (one statement). */
export async function saveProducerStates(
  q: Queryable,
  states: readonly { partitionId: number; producerId: number; state: ProducerPartitionState }[],
): Promise<void> {
  if (states.length === 0) return;
  const values: unknown[] = [];
  const tuples = states.map((s, i) => {
    values.push(
      s.partitionId,
      s.producerId,
      s.state.producerEpoch,
      producerLastOffset(s.state),
      encodeEntries(s.state.batches),
    );
    return `(${placeholders(i * 5, 5)})`;
  });
  await q.query(
    `INSERT INTO producer_partition (partition_id, producer_id, epoch, last_offset, batches) VALUES ${tuples.join(', ')}
     ON CONFLICT (partition_id, producer_id) DO UPDATE
       SET epoch = excluded.epoch, last_offset = excluded.last_offset, batches = excluded.batches`,
    values,
  );
}

/** Rows per INSERT: 11 parameters each, well under PostgreSQL's 65535 per statement. */
const INSERT_CHUNK = 1000;
const ROW_COLUMNS = 11;

/** Inserts batch rows with multi-row INSERTs; the Buffers travel as binary parameters. */
export async function insertBatchRows(
  q: Queryable,
  rows: readonly { partitionId: number; row: BatchRow }[],
): Promise<void> {
  for (let from = 0; from < rows.length; from += INSERT_CHUNK) {
    const chunk = rows.slice(from, from + INSERT_CHUNK);
    const values: unknown[] = [];
    const tuples = chunk.map(({ partitionId, row: r }, i) => {
      values.push(
        partitionId,
        r.baseOffset,
        r.lastOffset,
        r.recordCount,
        r.maxTimestamp,
        r.producerId,
        r.producerEpoch,
        r.baseSequence,
        r.size,
        r.deleteHorizonMs ?? -1,
        r.data,
      );
      return `(${placeholders(i * ROW_COLUMNS, ROW_COLUMNS)})`;
    });
    await q.query(
      `INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp, producer_id,
         producer_epoch, base_sequence, size, delete_horizon_ms, data) VALUES ${tuples.join(', ')}`,
      values,
    );
  }
}

/**
 * Stores the partitions' new high watermarks and NOTIFYs them in one statement; the notices are
 * delivered when (and only if) the transaction commits.
 */
export async function setHighWatermarks(q: Queryable, parts: readonly LockedPartition[]): Promise<void> {
  if (parts.length === 0) return;
  const notices = parts.map((p) =>
    JSON.stringify({ topic: p.topic, topicId: p.topicId, partition: p.partition, highWatermark: p.highWatermark }),
  );
  await q.query(
    `WITH u AS (
       UPDATE partition p SET high_watermark = v.hw FROM unnest($1::bigint[], $2::bigint[]) AS v(id, hw) WHERE p.id = v.id
       RETURNING p.id
     ), n AS (SELECT pg_notify('${APPEND_CHANNEL}', x) FROM unnest($3::text[]) AS x)
     SELECT (SELECT count(*) FROM u) AS updated, (SELECT count(*) FROM n) AS notified`,
    [parts.map((p) => p.id), parts.map((p) => p.highWatermark), notices],
  );
}

/** "$k+1, $k+2, ..., $k+n" */
export function placeholders(offset: number, n: number): string {
  return Array.from({ length: n }, (_, j) => `$${offset + j + 1}`).join(', ');
}
