// Append on PostgreSQL (docs/postgres.md): one transaction per call (= one append-queue flush).
// The partitions appended to are locked in id order (lockPartitions), so two brokers appending to
// one partition serialize on its row and never hand out an offset twice; the batches' producer
// states are read in the same statement, after the locks (lockPartitionsWithProducers); the shared
// planAppend decides from the locked high watermarks and producer states; then one statement
// writes the rows, producer states, open transactions and high watermarks, and COMMIT before
// anyone is answered: BEGIN, lock, write, COMMIT for plain and idempotent producers alike. The
// NOTIFY to the other brokers goes after the commit (log-writes.ts says why).
import { ErrorCode } from '../../protocol/error-codes';
import { isTransactional } from '../../protocol/record-batch';
import { planAppend } from '../append-plan';
import type { BatchRow } from '../append-plan';
import type { ProducerPartitionState } from '../producer-state';
import type { PartitionAppend, PartitionAppendResult, TransactionState } from '../storage';
import { checkTxnBatch } from '../txn-rules';
import type { ProducerTxn } from '../txn-rules';
import type { Db, Queryable } from './db';
import { lockPartitions, lockPartitionsWithProducers, partitionKey, stateKey, writeAppend } from './log-writes';
import type { LockedPartition, ProducerOnPartition } from './log-writes';

export async function append(
  db: Db,
  parts: readonly PartitionAppend[],
  nowMs: number,
): Promise<PartitionAppendResult[]> {
  if (parts.length === 0) return [];
  const producers: ProducerOnPartition[] = [];
  const txnProducers = new Set<number>();
  for (const part of parts) {
    for (const { header } of part.batches) {
      const producerId = Number(header.producerId);
      if (producerId < 0) continue;
      producers.push({ topic: part.topic, partition: part.partition, producerId });
      if (isTransactional(header.attributes)) txnProducers.add(producerId);
    }
  }
  return db.tx(async (q) => {
    // Batches without a producer id (plain producers) need no states: the lock alone.
    const { locked, states, open } =
      producers.length > 0
        ? await lockPartitionsWithProducers(q, uniqueKeys(parts), producers, true)
        : { locked: await lockPartitions(q, uniqueKeys(parts)), states: new Map(), open: new Set<string>() };
    const txns = await loadProducerTxns(q, [...txnProducers]);

    const results: PartitionAppendResult[] = [];
    const rows: { partitionId: number; row: BatchRow }[] = [];
    const changedStates = new Map<string, { partitionId: number; producerId: number; state: ProducerPartitionState }>();
    const opened: { partitionId: number; producerId: number; firstOffset: number }[] = [];
    const touched = new Set<LockedPartition>();
    for (const part of parts) {
      const entry = locked.get(partitionKey(part.topic, part.partition));
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
        (producerId) => states.get(stateKey(entry.id, producerId)),
        part,
        nowMs,
        (header) => {
          const producerId = Number(header.producerId);
          const txn = txns.get(producerId);
          const producerTxn = (): ProducerTxn | undefined =>
            txn && { producerEpoch: txn.epoch, state: txn.state, partitionAdded: txn.partitionIds.has(entry.id) };
          return checkTxnBatch(header, producerTxn, open.has(stateKey(entry.id, producerId)));
        },
      );
      if (!('rows' in plan)) {
        results.push(failed(plan.errorCode, entry.logStartOffset, plan.errorMessage));
        continue;
      }
      for (const row of plan.rows) rows.push({ partitionId: entry.id, row });
      for (const [producerId, state] of plan.producers) {
        const key = stateKey(entry.id, producerId);
        states.set(key, state); // a later part of this call for the same partition sees it
        changedStates.set(key, { partitionId: entry.id, producerId, state });
      }
      for (const [producerId, firstOffset] of plan.txnFirstOffsets) {
        const key = stateKey(entry.id, producerId);
        if (open.has(key)) continue;
        open.add(key);
        opened.push({ partitionId: entry.id, producerId, firstOffset });
      }
      if (plan.rows.length > 0) {
        entry.highWatermark = plan.highWatermark;
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
    await writeAppend(q, { rows, states: [...changedStates.values()], opened, partitions: [...touched] });
    return results;
  });
}

function uniqueKeys(parts: readonly PartitionAppend[]): { topic: string; partition: number }[] {
  const seen = new Map<string, { topic: string; partition: number }>();
  for (const p of parts) seen.set(partitionKey(p.topic, p.partition), { topic: p.topic, partition: p.partition });
  return [...seen.values()];
}

interface ProducerTxnRow {
  epoch: number;
  state: TransactionState;
  partitionIds: Set<number>;
}

/** The transactions of these producer ids (KIP-890 part 1's check), with their added partitions. */
async function loadProducerTxns(q: Queryable, producerIds: readonly number[]): Promise<Map<number, ProducerTxnRow>> {
  const txns = new Map<number, ProducerTxnRow>();
  if (producerIds.length === 0) return txns;
  const rows = await q.query<{ producer_id: number; epoch: number; state: TransactionState; partition_ids: number[] }>(
    `SELECT t.producer_id, t.producer_epoch AS epoch, t.state,
            array(SELECT p.partition_id FROM txn_partition p WHERE p.transactional_id = t.transactional_id) AS partition_ids
     FROM txn t WHERE t.producer_id = ANY($1::bigint[])`,
    [[...producerIds]],
  );
  for (const r of rows)
    txns.set(r.producer_id, { epoch: r.epoch, state: r.state, partitionIds: new Set(r.partition_ids.map(Number)) });
  return txns;
}

function failed(errorCode: number, logStartOffset: number, errorMessage: string): PartitionAppendResult {
  return { errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset, errorMessage };
}
