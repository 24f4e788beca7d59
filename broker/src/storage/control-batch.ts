// COMMIT / ABORT markers (Kafka's EndTransactionMarker, KIP-98): a control batch the broker writes
// into every partition of a transaction when it ends. Stored like any batch, so fetch returns the
// stored bytes unchanged and clients skip control batches themselves.
import { encodeRecordBatch, TimestampType } from '../protocol/record-batch';
import type { BatchRow } from './append-plan';

/** ControlRecordType: the key's type field. */
export const ControlType = { Abort: 0, Commit: 1 } as const;

/** Kafka's coordinator epoch: one coordinator that never moves, so always 0. */
const COORDINATOR_EPOCH = 0;

/**
 * The marker batch at `offset`: magic 2, attributes transactional | control, the producer's id and
 * (current) epoch, baseSequence -1, one record whose key is version 0 + type and whose value is
 * version 0 + coordinator epoch (EndTransactionMarker's schema v0), timestamp now, CRC-32C. On a
 * LogAppendTime topic the batch says so, as Kafka's LogValidator stamps the coordinator's markers.
 */
export function controlBatch(
  producerId: number,
  producerEpoch: number,
  commit: boolean,
  offset: number,
  nowMs: number,
  logAppendTime = false,
): BatchRow {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(commit ? ControlType.Commit : ControlType.Abort, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(COORDINATOR_EPOCH, 2);
  const data = encodeRecordBatch({
    records: [{ key, value, timestamp: BigInt(nowMs) }],
    baseOffset: BigInt(offset),
    partitionLeaderEpoch: 0,
    producerId: BigInt(producerId),
    producerEpoch,
    baseSequence: -1,
    isTransactional: true,
    isControl: true,
    timestampType: logAppendTime ? TimestampType.LogAppendTime : TimestampType.CreateTime,
  });
  return {
    baseOffset: offset,
    lastOffset: offset,
    maxTimestamp: nowMs,
    data,
    recordCount: 1,
    producerId,
    producerEpoch,
    baseSequence: -1,
    size: data.length,
  };
}
