// The per-record checks of a produced batch, after its records were scanned: keys on a compacted
// topic (LogValidator.validateKey) and timestamps (LogValidator.validateTimestamp, KIP-937), each
// failure with one record error per bad record (KIP-467).
import { ErrorCode } from '../protocol/error-codes';
import { Reader } from '../protocol/reader';
import { readRecord } from '../protocol/record';
import { BatchCheck, fail, RecordError } from './produce-batch-check';
import type { ProducePolicy } from './produce-policy';

/** RecordBatch.NO_TIMESTAMP */
export const NO_TIMESTAMP = -1;

/**
 * INVALID_RECORD with one record error per record without a key (LogValidator.validateKey and
 * processRecordErrors' message), or null when every record has one. Kafka checks a record's key
 * before its timestamp; a batch with both faults gets the key errors here.
 */
export function checkKeys(records: Buffer, start: number, count: number, topicPartition: string): BatchCheck | null {
  const errors: RecordError[] = [];
  const r = new Reader(records, start);
  for (let i = 0; i < count; i++) {
    if (readRecord(r).key === null) {
      errors.push({
        batchIndex: i,
        batchIndexErrorMessage: `Compacted topic cannot accept message without key in topic partition ${topicPartition}`,
      });
    }
  }
  if (errors.length === 0) return null;
  const shown = errors
    .slice(0, 3)
    .map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.batchIndexErrorMessage}')`)
    .join(', ');
  return fail(
    ErrorCode.INVALID_RECORD,
    `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
    errors,
  );
}

/**
 * Returns the INVALID_TIMESTAMP failure with one record error per bad record, or null when every
 * record passes. The scan's timestamp range settles the usual case without looking at records again.
 */
export function checkTimestamps(
  records: Buffer,
  start: number,
  count: number,
  policy: ProducePolicy,
  base: bigint,
  minDelta: number,
  maxDelta: number,
  flaggedLogAppendTime: boolean,
): BatchCheck | null {
  const now = policy.nowMs;
  const lowest = now - Number(policy.timestampBeforeMaxMs);
  const highest = now + Number(policy.timestampAfterMaxMs);
  const baseMs = Number(base);
  if (!flaggedLogAppendTime && baseMs + minDelta >= lowest && baseMs + maxDelta <= highest) return null;

  // Kafka prints the window with Java's long arithmetic, overflow included.
  const windowLow = BigInt.asIntN(64, BigInt(now) - policy.timestampBeforeMaxMs);
  const windowHigh = BigInt.asIntN(64, BigInt(now) + policy.timestampAfterMaxMs);
  const errors: RecordError[] = [];
  const r = new Reader(records, start);
  for (let i = 0; i < count; i++) {
    const record = readRecord(r); // the scan accepted these bytes, so this cannot throw
    const timestamp = flaggedLogAppendTime ? base : base + BigInt(record.timestampDelta);
    const ms = Number(timestamp);
    if (!policy.logAppendTime && ms !== NO_TIMESTAMP) {
      if (now - ms > Number(policy.timestampBeforeMaxMs) || ms - now > Number(policy.timestampAfterMaxMs)) {
        errors.push({
          batchIndex: i,
          batchIndexErrorMessage: `Timestamp ${timestamp} of message with offset ${record.offsetDelta} is out of range. The timestamp should be within [${windowLow}, ${windowHigh}]`,
        });
      }
    } else if (flaggedLogAppendTime) {
      const described = `DefaultRecord(offset=${record.offsetDelta}, timestamp=${timestamp}, key=${record.key?.length ?? 0} bytes, value=${record.value?.length ?? 0} bytes)`;
      errors.push({
        batchIndex: i,
        batchIndexErrorMessage: `Invalid timestamp type in message ${described}. Producer should not set timestamp type to LogAppendTime.`,
      });
    }
  }
  if (errors.length === 0) return null;
  return fail(ErrorCode.INVALID_TIMESTAMP, 'One or more records have been rejected due to invalid timestamp', errors);
}
