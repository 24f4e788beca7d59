// What an append does, decided once for every engine: idempotence checks, offset assignment,
// LogAppendTime stamping and the rows to store. Engines only persist the plan, inside the same
// transaction that read the high watermark and producer states it was computed from.
import { ErrorCode } from '../protocol/error-codes';
import {
  isTransactional,
  setBaseOffset,
  setMaxTimestamp,
  setPartitionLeaderEpoch,
  TimestampType,
} from '../protocol/record-batch';
import type { RecordBatchHeader } from '../protocol/record-batch';
import { afterAppend, checkSequence } from './producer-state';
import type { ProducerPartitionState } from './producer-state';
import type { PartitionAppend, StoredBatch } from './storage';
import type { TxnCheck } from './txn-rules';

/** One stored batch as every engine keeps it: the blob plus what queries need without decoding it. */
export interface BatchRow extends StoredBatch {
  recordCount: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** data.length, kept so retention and fetch can sum sizes without reading blobs. */
  size: number;
  /** When the compactor may drop this batch's tombstones or marker (-1 or absent: not set yet). */
  deleteHorizonMs?: number;
}

export type AppendPlan =
  | {
      errorCode: typeof ErrorCode.NONE;
      /** Offset of the first batch: assigned, or the original one for a retried duplicate. */
      baseOffset: number;
      /** nowMs with LogAppendTime when something was appended, else -1. */
      logAppendTimeMs: number;
      /** Rows to insert, in offset order; empty when every batch was a duplicate. */
      rows: BatchRow[];
      highWatermark: number;
      /** Producer states to store (only the producers this append touched). */
      producers: Map<number, ProducerPartitionState>;
      /** Producer id -> offset of its first transactional batch appended here (open_txn candidates). */
      txnFirstOffsets: Map<number, number>;
    }
  | { errorCode: number; errorMessage: string };

/** Returns the partition's stored state of one producer, or undefined if it never wrote there. */
export type ProducerLookup = (producerId: number) => ProducerPartitionState | undefined;

/** Checks a producer's batch against its transaction (txn-rules.ts checkTxnBatch), before its sequence. */
export type TxnLookup = (header: RecordBatchHeader) => TxnCheck;

/**
 * Plans appending `part.batches` to a partition whose log ends at `highWatermark`. On success the
 * batch buffers are rewritten in place (baseOffset, partitionLeaderEpoch, and the timestamp type
 * and maxTimestamp with their CRC when they differ: the validated header's maxTimestamp, computed
 * from the records, or now with LogAppendTime); on error nothing is touched and nothing may be
 * stored, as Kafka fails the whole partition's batches together.
 */
export function planAppend(
  highWatermark: number,
  producerState: ProducerLookup,
  part: PartitionAppend,
  nowMs: number,
  txnCheck: TxnLookup = () => null,
): AppendPlan {
  const producers = new Map<number, ProducerPartitionState>();
  const txnFirstOffsets = new Map<number, number>();
  const decided: { header: RecordBatchHeader; data: Buffer; baseOffset: number; append: boolean }[] = [];
  let next = highWatermark;

  // Pass 1: decide every batch without touching the buffers, so an error leaves them as received.
  for (const { header, data } of part.batches) {
    const producerId = Number(header.producerId);
    if (producerId >= 0) {
      const refused = txnCheck(header);
      if (refused)
        return { errorCode: refused.errorCode, errorMessage: `${part.topic}-${part.partition}: ${refused.message}` };
      const state = producers.has(producerId) ? producers.get(producerId) : producerState(producerId);
      const check = checkSequence(state, header);
      if (check.kind === 'error') {
        return { errorCode: check.errorCode, errorMessage: `${part.topic}-${part.partition}: ${check.message}` };
      }
      if (check.kind === 'duplicate') {
        decided.push({ header, data, baseOffset: check.baseOffset, append: false });
        continue;
      }
      producers.set(producerId, afterAppend(state, header, next));
      if (isTransactional(header.attributes) && !txnFirstOffsets.has(producerId)) txnFirstOffsets.set(producerId, next);
    }
    decided.push({ header, data, baseOffset: next, append: true });
    next += header.lastOffsetDelta + 1;
  }

  // Pass 2: rewrite the appended batches and describe their rows.
  const rows: BatchRow[] = [];
  for (const { header, data, baseOffset, append } of decided) {
    if (!append) continue;
    setBaseOffset(data, BigInt(baseOffset));
    // One replica that never changes leadership: epoch 0 (clients use it only for truncation checks).
    setPartitionLeaderEpoch(data, 0);
    // As Kafka's LogValidator stores a batch in place: the topic's timestamp type, and as
    // maxTimestamp now (LogAppendTime) or the one computed from the records (CreateTime), so a
    // client that sent -1 there (sarama < 1.45.1) does not make retention or ListOffsets lose them.
    const maxTimestamp = part.logAppendTime ? BigInt(nowMs) : header.maxTimestamp;
    setMaxTimestamp(data, part.logAppendTime ? TimestampType.LogAppendTime : TimestampType.CreateTime, maxTimestamp);
    rows.push({
      baseOffset,
      lastOffset: baseOffset + header.lastOffsetDelta,
      recordCount: header.recordsCount,
      maxTimestamp: Number(maxTimestamp),
      producerId: Number(header.producerId),
      producerEpoch: header.producerEpoch,
      baseSequence: header.baseSequence,
      size: data.length,
      data,
    });
  }
  const first = decided[0];
  return {
    errorCode: ErrorCode.NONE,
    baseOffset: first ? first.baseOffset : highWatermark,
    logAppendTimeMs: part.logAppendTime && rows.length > 0 ? nowMs : -1,
    rows,
    highWatermark: next,
    producers,
    txnFirstOffsets,
  };
}
