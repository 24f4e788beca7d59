// The writes every log change shares on PostgreSQL (appends here, markers and cleaning in
// transactions.ts / cleaner.ts): locking partitions in one order, producer states, inserting
// batch rows, moving high watermarks and telling the other brokers (NOTIFY). Each takes the
// transaction's Queryable: call inside Db.tx.
import { producerLastOffset } from '../log-rules';
import type { BatchRow } from '../append-plan';
import type { ProducerPartitionState } from '../producer-state';
import { decodeEntries, encodeEntries } from '../sqlite/producers';
import { prepared } from './db';
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

// The partitions named by ($1 topic names, $2 partition indexes), locked in id order.
const LOCKED_PARTITIONS = `SELECT p.id, t.name AS topic, t.topic_uuid AS "topicId", p.partition_index AS partition,
            p.log_start_offset AS "logStartOffset", p.high_watermark AS "highWatermark"
     FROM partition p JOIN topic t ON t.id = p.topic_id
     JOIN unnest($1::text[], $2::int[]) AS u(name, idx) ON t.name = u.name AND p.partition_index = u.idx
     ORDER BY p.id FOR NO KEY UPDATE OF p`;
const LOCK_PARTITIONS = prepared('lock_partitions', LOCKED_PARTITIONS);
// The producer states' query is written once, in minnow_producer_rows (migrations.ts, migration 4).
const LOAD_PRODUCERS = prepared(
  'load_producers',
  `SELECT is_open AS open, partition_id, producer_id, epoch, batches
     FROM minnow_producer_rows($1::bigint[], $2::bigint[], $3::boolean)`,
);

// LOCK_PARTITIONS and the producer states of the batches' producers in one round trip (an
// idempotent append's extra statement was a fifth of its transaction: BEGIN, lock, states, write,
// COMMIT). The states come from minnow_producer_rows (migration 4), whose query runs after every
// row of \`locked\` is locked (its arguments aggregate them) and with a fresh snapshot, so it sees
// what the lock waited for, as a separate statement would; a plain join here would read the
// states as of this statement's start, before the wait. Rows: the locked partitions (state false),
// then the states (state true).
const LOCK_PARTITIONS_WITH_PRODUCERS = prepared(
  'lock_partitions_with_producers',
  `WITH locked AS MATERIALIZED (${LOCKED_PARTITIONS}), wanted AS (
       SELECT array_agg(l.id ORDER BY l.id, w.pr) AS pa, array_agg(w.pr ORDER BY l.id, w.pr) AS pr
       FROM locked l JOIN unnest($3::text[], $4::int[], $5::bigint[]) AS w(name, idx, pr)
         ON l.topic = w.name AND l.partition = w.idx
     )
     SELECT false AS state, l.id, l.topic, l."topicId", l.partition, l."logStartOffset", l."highWatermark",
            NULL::bigint AS producer_id, NULL::integer AS epoch, NULL::bytea AS batches, NULL::boolean AS open
       FROM locked l
     UNION ALL
     SELECT true, s.partition_id, NULL, NULL, NULL, NULL, NULL, s.producer_id, s.epoch, s.batches, s.is_open
       FROM wanted w CROSS JOIN LATERAL minnow_producer_rows(w.pa, w.pr, $6::boolean) AS s`,
);

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
 * Locks the named partitions' rows in partition id order, the one order every broker uses, so two
 * brokers' transactions cannot deadlock (docs/postgres.md, "Lock order"). Unknown partitions are
 * absent from the map (key: `topic\0partition`). FOR NO KEY UPDATE, not FOR UPDATE: no caller
 * (append, markers, retention, DeleteRecords) changes the row's key, and FOR UPDATE would also
 * block the FOR KEY SHARE lock every insert referencing the partition takes for its foreign key
 * (AddPartitionsToTxn's txn_partition, the cleaner's checkpoint) until the append commits.
 */
export async function lockPartitions(
  q: Queryable,
  keys: readonly { topic: string; partition: number }[],
): Promise<Map<string, LockedPartition>> {
  const rows = await q.query<LockedPartition>(LOCK_PARTITIONS, [
    keys.map((k) => k.topic),
    keys.map((k) => k.partition),
  ]);
  return new Map(rows.map((r) => [partitionKey(r.topic, r.partition), r]));
}

/** A batch's producer on a partition, by name: whose state lockPartitionsWithProducers reads. */
export interface ProducerOnPartition {
  topic: string;
  partition: number;
  producerId: number;
}

/**
 * lockPartitions, and (as loadProducers) the states of `producers` on the locked partitions, and
 * (withOpen) which of them have an open transaction there: one statement.
 */
export async function lockPartitionsWithProducers(
  q: Queryable,
  keys: readonly { topic: string; partition: number }[],
  producers: readonly ProducerOnPartition[],
  withOpen: boolean,
): Promise<{ locked: Map<string, LockedPartition>; states: Map<string, ProducerPartitionState>; open: Set<string> }> {
  const rows = await q.query<
    LockedPartition & { state: boolean; producer_id: number; epoch: number; batches: Buffer; open: boolean }
  >(LOCK_PARTITIONS_WITH_PRODUCERS, [
    keys.map((k) => k.topic),
    keys.map((k) => k.partition),
    producers.map((p) => p.topic),
    producers.map((p) => p.partition),
    producers.map((p) => p.producerId),
    withOpen,
  ]);
  const locked = new Map<string, LockedPartition>();
  const states = new Map<string, ProducerPartitionState>();
  const open = new Set<string>();
  for (const r of rows) {
    if (!r.state) {
      const { id, topic, topicId, partition, logStartOffset, highWatermark } = r;
      locked.set(partitionKey(topic, partition), { id, topic, topicId, partition, logStartOffset, highWatermark });
    } else if (r.open) open.add(stateKey(r.id, r.producer_id));
    else states.set(stateKey(r.id, r.producer_id), { producerEpoch: r.epoch, batches: decodeEntries(r.batches) });
  }
  return { locked, states, open };
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\0${partition}`;
}

/** Producer states of the given (partition id, producer id) pairs; key `partitionId:producerId`. */
export async function loadProducerStates(
  q: Queryable,
  pairs: readonly { partitionId: number; producerId: number }[],
): Promise<Map<string, ProducerPartitionState>> {
  return (await loadProducers(q, pairs, false)).states;
}

/**
 * The pairs' producer states, and (withOpen) which of them have an open transaction in the
 * partition: one query for both, as an append needs both.
 */
export async function loadProducers(
  q: Queryable,
  pairs: readonly { partitionId: number; producerId: number }[],
  withOpen: boolean,
): Promise<{ states: Map<string, ProducerPartitionState>; open: Set<string> }> {
  const states = new Map<string, ProducerPartitionState>();
  const open = new Set<string>();
  if (pairs.length === 0) return { states, open };
  const rows = await q.query<{
    open: boolean;
    partition_id: number;
    producer_id: number;
    epoch: number;
    batches: Buffer;
  }>(LOAD_PRODUCERS, [pairs.map((p) => p.partitionId), pairs.map((p) => p.producerId), withOpen]);
  for (const r of rows) {
    const key = stateKey(r.partition_id, r.producer_id);
    if (r.open) open.add(key);
    else states.set(key, { producerEpoch: r.epoch, batches: decodeEntries(r.batches) });
  }
  return { states, open };
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
  await q.query(upsertStatesSql(values, states), values);
}

type StateChange = { partitionId: number; producerId: number; state: ProducerPartitionState };

/** The upsert of `states`, its parameters appended to `values`. */
function upsertStatesSql(values: unknown[], states: readonly StateChange[]): string {
  const tuples = states.map((s) => {
    const at = values.length;
    values.push(
      s.partitionId,
      s.producerId,
      s.state.producerEpoch,
      producerLastOffset(s.state),
      encodeEntries(s.state.batches),
    );
    return `(${placeholders(at, 5)})`;
  });
  return `INSERT INTO producer_partition (partition_id, producer_id, epoch, last_offset, batches) VALUES ${tuples.join(', ')}
     ON CONFLICT (partition_id, producer_id) DO UPDATE
       SET epoch = excluded.epoch, last_offset = excluded.last_offset, batches = excluded.batches`;
}

/** Rows per INSERT: 11 parameters each, well under PostgreSQL's 65535 per statement. */
const INSERT_CHUNK = 1000;
const ROW_COLUMNS = 11;

type RowInsert = { partitionId: number; row: BatchRow };

/** Inserts batch rows with multi-row INSERTs; the Buffers travel as binary parameters. */
export async function insertBatchRows(q: Queryable, rows: readonly RowInsert[]): Promise<void> {
  for (let from = 0; from < rows.length; from += INSERT_CHUNK) {
    const values: unknown[] = [];
    await q.query(insertRowsSql(values, rows.slice(from, from + INSERT_CHUNK)), values);
  }
}

function insertRowsSql(values: unknown[], rows: readonly RowInsert[]): string {
  const tuples = rows.map(({ partitionId, row: r }) => {
    const at = values.length;
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
    return `(${placeholders(at, ROW_COLUMNS)})`;
  });
  return `INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp, producer_id,
         producer_epoch, base_sequence, size, delete_horizon_ms, data) VALUES ${tuples.join(', ')}`;
}

/**
 * Stores the partitions' new high watermarks; NOTIFYs them once the transaction has committed
 * (notifyAppended).
 */
export async function setHighWatermarks(q: Queryable, parts: readonly LockedPartition[]): Promise<void> {
  if (parts.length === 0) return;
  const values: unknown[] = [];
  await q.query(`WITH ${highWatermarkCte(values, parts)} SELECT 1`, values);
  await notifyAppended(q, parts);
}

/** A CTE (hw_update): the UPDATE of the partitions' high watermarks. */
function highWatermarkCte(values: unknown[], parts: readonly LockedPartition[]): string {
  const at = values.length;
  values.push(
    parts.map((p) => p.id),
    parts.map((p) => p.highWatermark),
  );
  return `hw_update AS (
       UPDATE partition p SET high_watermark = v.hw FROM unnest($${at + 1}::bigint[], $${at + 2}::bigint[]) AS v(id, hw)
       WHERE p.id = v.id
     )`;
}

/**
 * Tells the other brokers (LISTEN minnow_append) about the partitions' new high watermarks: after
 * the commit, in a statement of its own, when `q` is a transaction. Not inside it: a transaction
 * that NOTIFYs takes a database-wide lock held until its commit is flushed, so every appending
 * transaction of every broker would commit one after the other (measured: half the appends per
 * second with 8 sessions). A notice lost to a crash right after the commit costs the waiting
 * fetches at most their max wait (docs/postgres.md).
 */
export async function notifyAppended(q: Queryable, parts: readonly LockedPartition[]): Promise<void> {
  if (parts.length === 0) return;
  const notices = parts.map((p) =>
    JSON.stringify({ topic: p.topic, topicId: p.topicId, partition: p.partition, highWatermark: p.highWatermark }),
  );
  const send = (db: Queryable) =>
    db.query(`SELECT pg_notify('${APPEND_CHANNEL}', x) FROM unnest($1::text[]) AS x`, [notices]);
  if (q.afterCommit) q.afterCommit(send);
  else await send(q);
}

/**
 * Everything an append writes after planning, in ONE statement (data-modifying CTEs; a round trip
 * each would double an append's latency): the batch rows (beyond INSERT_CHUNK rows, the rest go
 * first in their own INSERTs), producer states, open transactions and high watermarks; the NOTIFYs
 * after the commit.
 */
export async function writeAppend(
  q: Queryable,
  w: {
    rows: readonly RowInsert[];
    states: readonly StateChange[];
    opened: readonly { partitionId: number; producerId: number; firstOffset: number }[];
    partitions: readonly LockedPartition[];
  },
): Promise<void> {
  const split = Math.max(0, w.rows.length - INSERT_CHUNK);
  if (split > 0) await insertBatchRows(q, w.rows.slice(0, split));
  const values: unknown[] = [];
  const ctes: string[] = [];
  if (w.rows.length > split) ctes.push(`rows_insert AS (${insertRowsSql(values, w.rows.slice(split))})`);
  if (w.states.length > 0) ctes.push(`states_upsert AS (${upsertStatesSql(values, w.states)})`);
  if (w.opened.length > 0) {
    const at = values.length;
    values.push(
      w.opened.map((o) => o.partitionId),
      w.opened.map((o) => o.producerId),
      w.opened.map((o) => o.firstOffset),
    );
    ctes.push(`open_insert AS (INSERT INTO open_txn (partition_id, producer_id, first_offset)
       SELECT * FROM unnest($${at + 1}::bigint[], $${at + 2}::bigint[], $${at + 3}::bigint[]) ON CONFLICT DO NOTHING)`);
  }
  if (w.partitions.length > 0) ctes.push(highWatermarkCte(values, w.partitions));
  if (ctes.length > 0) await q.query(`WITH ${ctes.join(', ')} SELECT 1`, values);
  await notifyAppended(q, w.partitions);
}

/** "$k+1, $k+2, ..., $k+n" */
export function placeholders(offset: number, n: number): string {
  return Array.from({ length: n }, (_, j) => `$${offset + j + 1}`).join(', ');
}
