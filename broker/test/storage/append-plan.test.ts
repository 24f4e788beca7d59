// planAppend stores the validated maxTimestamp: in the row (retention, ListOffsets by time) and in
// the batch bytes with a fresh CRC, as Kafka's DefaultRecordBatch.setMaxTimestamp does.
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  MAX_TIMESTAMP,
  TimestampType,
  encodeRecordBatch,
  readBatchHeader,
  timestampType,
  verifyBatchCrc,
} from '../../src/protocol/record-batch';
import { planAppend } from '../../src/storage/append-plan';

const TS = 1_700_000_000_000n;

function sent(maxTimestamp: bigint, type: TimestampType = TimestampType.CreateTime) {
  const data = encodeRecordBatch({
    records: [
      { value: Buffer.from('a'), timestamp: TS },
      { value: Buffer.from('b'), timestamp: TS + 7n },
    ],
    maxTimestamp,
    timestampType: type,
  });
  return { header: readBatchHeader(data), data };
}

function plan(batch: ReturnType<typeof sent>, logAppendTime = false, nowMs = 5_000) {
  const p = planAppend(10, () => undefined, { topic: 't', partition: 0, batches: [batch], logAppendTime }, nowMs);
  if (!('rows' in p)) throw new Error(`plan failed: ${p.errorCode} ${p.errorMessage}`);
  expect(p.errorCode).toBe(ErrorCode.NONE);
  return p;
}

describe('planAppend and maxTimestamp', () => {
  it("writes the validated maxTimestamp over the producer's -1 and keeps the CRC valid", () => {
    const b = sent(-1n);
    b.header.maxTimestamp = TS + 7n; // what validation computed from the records
    const p = plan(b);
    expect(p.rows[0]!.maxTimestamp).toBe(Number(TS + 7n));
    expect(b.data.readBigInt64BE(MAX_TIMESTAMP)).toBe(TS + 7n);
    expect(verifyBatchCrc(b.data)).toBe(true);
  });

  it("leaves the bytes (and CRC) alone when the producer's maxTimestamp was right", () => {
    const b = sent(TS + 7n);
    const crcBefore = b.data.readUInt32BE(17);
    plan(b);
    expect(b.data.readUInt32BE(17)).toBe(crcBefore);
    expect(b.data.readBigInt64BE(MAX_TIMESTAMP)).toBe(TS + 7n);
  });

  it('on a CreateTime topic a LogAppendTime-flagged batch becomes CreateTime, as Kafka stores it', () => {
    const b = sent(TS + 7n, TimestampType.LogAppendTime);
    plan(b);
    expect(timestampType(b.data.readInt16BE(21))).toBe(TimestampType.CreateTime);
    expect(verifyBatchCrc(b.data)).toBe(true);
  });

  it('LogAppendTime stamps now, whatever the header said', () => {
    const b = sent(-1n);
    const p = plan(b, true, 123_456);
    expect(p.rows[0]!.maxTimestamp).toBe(123_456);
    expect(b.data.readBigInt64BE(MAX_TIMESTAMP)).toBe(123_456n);
    expect(timestampType(b.data.readInt16BE(21))).toBe(TimestampType.LogAppendTime);
    expect(verifyBatchCrc(b.data)).toBe(true);
  });
});
