// Deleting from the low end of a log on PostgreSQL: DeleteRecords and retention (retention.ms,
// retention.bytes). Each partition's delete runs in a transaction holding its row lock (the same
// lock appends take), and decides what to delete under it, so two brokers enforcing retention at
// once cannot delete twice what one should (by bytes) and the log start offset only moves forward.
import { ErrorCode } from '../../protocol/error-codes';
import { deleteRecordsTarget, retentionDeletes, retentionLimits } from '../log-rules';
import type { RetentionLimits } from '../log-rules';
import { SweepProgress } from '../retention-sweep';
import { RETENTION_SWEEP_START } from '../storage';
import type { DeleteRecordsResult, RetentionDefaults, RetentionResult, RetentionWindow } from '../storage';
import type { Db, Queryable } from './db';
import { lockPartitions, partitionKey } from './log-writes';
import type { LockedPartition } from './log-writes';

interface OldBatch {
  lastOffset: number;
  maxTimestamp: number;
  size: number;
}

export async function deleteRecords(
  db: Db,
  topic: string,
  partition: number,
  offset: number,
): Promise<DeleteRecordsResult> {
  return db.tx(async (q) => {
    const entry = (await lockPartitions(q, [{ topic, partition }])).get(partitionKey(topic, partition));
    if (!entry) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, logStartOffset: -1, highWatermark: -1 };
    const target = deleteRecordsTarget(entry, offset);
    if (target.errorCode === ErrorCode.NONE && target.logStartOffset > entry.logStartOffset)
      await deleteBelow(q, entry, target.logStartOffset, target.logStartOffset);
    return { errorCode: target.errorCode, logStartOffset: entry.logStartOffset, highWatermark: entry.highWatermark };
  });
}

/**
 * Deletes the whole batches ending below `endOffset`, moves the log start to `logStartOffset`
 * (never back), forgets producers with nothing left and aborted ranges wholly below it, as Kafka
 * drops them with their segments. `entry` must be locked; its logStartOffset is updated.
 */
export async function deleteBelow(
  q: Queryable,
  entry: LockedPartition,
  endOffset: number,
  logStartOffset: number,
): Promise<{ batches: number; bytes: number }> {
  const [deleted] = await q.query<{ batches: number; bytes: number }>(
    `WITH d AS (DELETE FROM record_batch WHERE partition_id = $1 AND base_offset < $2 AND last_offset < $2 RETURNING size)
     SELECT count(*) AS batches, coalesce(sum(size), 0) AS bytes FROM d`,
    [entry.id, endOffset],
  );
  entry.logStartOffset = Math.max(entry.logStartOffset, logStartOffset);
  await q.query(
    `WITH p AS (UPDATE partition SET log_start_offset = $2 WHERE id = $1 RETURNING id),
          s AS (DELETE FROM producer_partition WHERE partition_id = $1 AND last_offset < $2 RETURNING 1),
          a AS (DELETE FROM aborted_txn WHERE partition_id = $1 AND last_offset < $2 RETURNING 1)
     SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM s), (SELECT count(*) FROM a)`,
    [entry.id, entry.logStartOffset],
  );
  return deleted!;
}

interface Candidate {
  id: number;
  topic: string;
  partition: number;
  topicConfigs: Record<string, string>;
  hw: number;
  first: OldBatch | null;
}

/**
 * Deletes batches past retention, at most `maxBatches` per call. One query finds each partition's
 * oldest batch; only partitions where that one may go get a locked transaction.
 */
export async function enforceRetention(
  db: Db,
  nowMs: number,
  defaults: RetentionDefaults,
  maxBatches: number,
  window?: RetentionWindow,
): Promise<RetentionResult> {
  const result: RetentionResult = { deletedBatches: 0, deletedBytes: 0 };
  // Sweep order: topic name (COLLATE "C": code-unit order, as the other engines sort), partition.
  const after = window?.after ?? RETENTION_SWEEP_START;
  const limit = window ? window.maxPartitions + 1 : null; // one more: are there partitions after the window?
  const candidates = await db.query<Candidate>(
    `SELECT p.id, t.name AS topic, p.partition_index AS partition, p.high_watermark AS hw,
       coalesce((SELECT json_object_agg(c.name, c.value) FROM topic_config c WHERE c.topic_id = t.id), '{}') AS "topicConfigs",
       (SELECT json_build_object('lastOffset', b.last_offset, 'maxTimestamp', b.max_timestamp, 'size', b.size)
        FROM record_batch b WHERE b.partition_id = p.id ORDER BY b.base_offset LIMIT 1) AS first
     FROM partition p JOIN topic t ON t.id = p.topic_id
     WHERE (t.name COLLATE "C", p.partition_index) > ($1::text COLLATE "C", $2::int)
     ORDER BY t.name COLLATE "C", p.partition_index LIMIT $3::int`,
    [after.topic, after.partition, limit],
  );
  const more = limit !== null && candidates.length === limit;
  const progress = new SweepProgress(window);
  for (const c of more ? candidates.slice(0, -1) : candidates) {
    const budget = maxBatches - result.deletedBatches;
    if (budget <= 0) {
      progress.stop();
      break;
    }
    const deleted = await enforceCandidate(db, c, defaults, nowMs, budget);
    result.deletedBatches += deleted.batches;
    result.deletedBytes += deleted.bytes;
    if (deleted.batches >= budget) {
      progress.stop(); // the budget ran out here: this partition may hold more
      break;
    }
    progress.finished(c.topic, c.partition);
  }
  return progress.result(result, more);
}

async function enforceCandidate(
  db: Db,
  c: Candidate,
  defaults: RetentionDefaults,
  nowMs: number,
  budget: number,
): Promise<{ batches: number; bytes: number }> {
  const none = { batches: 0, bytes: 0 };
  if (!c.first) return none;
  const limits = retentionLimits(c.topicConfigs, defaults, nowMs);
  if (limits.minTimestamp === -Infinity && limits.maxBytes === Infinity) return none;
  // By time alone the oldest batch decides; by bytes the partition's size does (under the lock).
  if (limits.maxBytes === Infinity && !retentionDeletes(c.first, 0, c.hw, limits)) return none;
  return db.tx((q) => enforceOne(q, c, limits, budget));
}

async function enforceOne(
  q: Queryable,
  c: Candidate,
  limits: RetentionLimits,
  budget: number,
): Promise<{ batches: number; bytes: number }> {
  const entry = (await lockPartitions(q, [{ topic: c.topic, partition: c.partition }])).get(
    partitionKey(c.topic, c.partition),
  );
  if (!entry || entry.id !== c.id) return { batches: 0, bytes: 0 }; // deleted (or recreated) meanwhile
  let bytes = 0;
  if (limits.maxBytes !== Infinity) {
    const [row] = await q.query<{ bytes: number }>(
      'SELECT coalesce(sum(size), 0) AS bytes FROM record_batch WHERE partition_id = $1',
      [entry.id],
    );
    bytes = row!.bytes;
  }
  const oldest = await q.query<OldBatch>(
    `SELECT last_offset AS "lastOffset", max_timestamp AS "maxTimestamp", size FROM record_batch
     WHERE partition_id = $1 ORDER BY base_offset LIMIT $2`,
    [entry.id, budget],
  );
  let endOffset = -1;
  for (const b of oldest) {
    if (!retentionDeletes(b, bytes, entry.highWatermark, limits)) break;
    bytes -= b.size;
    endOffset = b.lastOffset + 1;
  }
  if (endOffset < 0) return { batches: 0, bytes: 0 };
  return deleteBelow(q, entry, endOffset, endOffset);
}
