// What the produce-validation tests share: a policy with Kafka's defaults, batches to tamper with,
// and the two outcomes of a check.
import { CompressionType } from '../../src/protocol/compression';
import { crc32c } from '../../src/protocol/crc32c';
import {
  ATTRIBUTES,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  CRC,
  LAST_OFFSET_DELTA,
  LOG_OVERHEAD,
  RECORDS_COUNT,
  type RecordBatchInput,
  encodeRecordBatch,
} from '../../src/protocol/record-batch';
import type { BatchCheck } from '../../src/server/produce-batch-check';
import { type ProducePolicy } from '../../src/server/produce-policy';

export const NOW = 1_700_000_000_000;
export const LONG_MAX = 9223372036854775807n;
export const codecs = Object.entries(CompressionType) as [string, CompressionType][];

export function policy(o: Partial<ProducePolicy> = {}): ProducePolicy {
  return {
    maxMessageBytes: 1048588,
    produceVersion: 9,
    logAppendTime: false,
    timestampBeforeMaxMs: LONG_MAX,
    timestampAfterMaxMs: LONG_MAX,
    compacted: false,
    nowMs: NOW,
    ...o,
  };
}

export function batchOf(n: number, o: Partial<RecordBatchInput> = {}): Buffer {
  return encodeRecordBatch({
    records: Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.from(`value ${i} `.repeat(20)),
      timestamp: BigInt(NOW - 1000 + i * 10),
    })),
    ...o,
  });
}

/** Recomputes the CRC after tampering, so only the record-level damage is left. */
export function recrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES), CRC);
  return batch;
}

/** A batch whose records section is exactly `records` (raw bytes), claiming `count` records. */
export function rawBatch(records: Buffer, count: number): Buffer {
  const header = batchOf(1).subarray(0, BATCH_HEADER_SIZE);
  const b = Buffer.concat([header, records]);
  b.writeInt32BE(b.length - LOG_OVERHEAD, BATCH_LENGTH);
  b.writeInt32BE(count, RECORDS_COUNT);
  b.writeInt32BE(count - 1, LAST_OFFSET_DELTA);
  return recrc(b);
}

export function failure(check: BatchCheck) {
  if (check.ok) throw new Error('expected the batch to be refused');
  return check;
}

export function accepted(check: BatchCheck) {
  if (!check.ok) throw new Error(`expected the batch to pass, got ${check.errorCode}: ${check.message}`);
  return check.batches;
}
