// Produce validation as Kafka's LogValidator does it: every record decoded before a batch is
// stored, timestamps checked, maxTimestamp computed from the records.
import { CompressionType } from '../../src/protocol/compression';
import { crc32c } from '../../src/protocol/crc32c';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  ATTRIBUTES,
  BASE_OFFSET,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  CRC,
  LAST_OFFSET_DELTA,
  LOG_OVERHEAD,
  RECORDS_COUNT,
  type RecordBatchInput,
  TimestampType,
  encodeRecordBatch,
} from '../../src/protocol/record-batch';
import type { BatchCheck } from '../../src/server/produce-batch-check';
import { type ProducePolicy, producePolicy } from '../../src/server/produce-policy';
import { validateProduceRecords } from '../../src/server/produce-validation';

const NOW = 1_700_000_000_000;
const LONG_MAX = 9223372036854775807n;
const codecs = Object.entries(CompressionType) as [string, CompressionType][];

function policy(o: Partial<ProducePolicy> = {}): ProducePolicy {
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

function batchOf(n: number, o: Partial<RecordBatchInput> = {}): Buffer {
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
function recrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES), CRC);
  return batch;
}

/** A batch whose records section is exactly `records` (raw bytes), claiming `count` records. */
function rawBatch(records: Buffer, count: number): Buffer {
  const header = batchOf(1).subarray(0, BATCH_HEADER_SIZE);
  const b = Buffer.concat([header, records]);
  b.writeInt32BE(b.length - LOG_OVERHEAD, BATCH_LENGTH);
  b.writeInt32BE(count, RECORDS_COUNT);
  b.writeInt32BE(count - 1, LAST_OFFSET_DELTA);
  return recrc(b);
}

function failure(check: BatchCheck) {
  if (check.ok) throw new Error('expected the batch to be refused');
  return check;
}

function accepted(check: BatchCheck) {
  if (!check.ok) throw new Error(`expected the batch to pass, got ${check.errorCode}: ${check.message}`);
  return check.batches;
}

describe('valid batches', () => {
  it.each(codecs)("%s: passes, keeps the bytes, and reports the records' max timestamp", (_name, type) => {
    const batch = batchOf(16, { compression: type });
    const copy = Buffer.from(batch);
    const [b] = accepted(validateProduceRecords(batch, policy()));
    expect(b!.data).toBe(batch);
    expect(batch.equals(copy)).toBe(true);
    expect(b!.header.maxTimestamp).toBe(BigInt(NOW - 1000 + 150));
  });

  it.each(codecs)('%s: a maxTimestamp of -1 (sarama < 1.45.1) is recomputed from the records', (_name, type) => {
    const batch = batchOf(5, { compression: type, maxTimestamp: -1n });
    const [b] = accepted(validateProduceRecords(batch, policy()));
    expect(b!.header.maxTimestamp).toBe(BigInt(NOW - 1000 + 40));
  });

  it("a maxTimestamp larger than any record is brought down to the records' maximum", () => {
    const [b] = accepted(validateProduceRecords(batchOf(3, { maxTimestamp: BigInt(NOW) * 2n }), policy()));
    expect(b!.header.maxTimestamp).toBe(BigInt(NOW - 1000 + 20));
  });

  it('records without a timestamp (-1) are not checked against the limits', () => {
    const batch = encodeRecordBatch({
      records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }],
      baseTimestamp: -1n,
    });
    const [b] = accepted(
      validateProduceRecords(batch, policy({ timestampBeforeMaxMs: 1000n, timestampAfterMaxMs: 1000n })),
    );
    expect(b!.header.maxTimestamp).toBe(-1n);
  });

  it('a record with null key and value, and headers, passes', () => {
    const batch = encodeRecordBatch({
      records: [
        {
          key: null,
          value: null,
          headers: [
            { key: 'h', value: null },
            { key: '', value: Buffer.from('v') },
          ],
        },
      ],
      baseTimestamp: BigInt(NOW),
    });
    accepted(validateProduceRecords(batch, policy()));
  });
});

describe('broken records behind a valid CRC', () => {
  it('garbage record bytes: INVALID_RECORD, nothing else', () => {
    const batch = batchOf(4);
    batch.fill(0xfe, BATCH_HEADER_SIZE + 1, BATCH_HEADER_SIZE + 40);
    const f = failure(validateProduceRecords(recrc(batch), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.recordErrors).toEqual([]);
  });

  it('a gzip flag over plain bytes: INVALID_RECORD, the records do not decompress', () => {
    const batch = batchOf(4);
    batch.writeInt16BE(batch.readInt16BE(ATTRIBUTES) | CompressionType.Gzip, ATTRIBUTES);
    const f = failure(validateProduceRecords(recrc(batch), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/do not decompress/);
  });

  it.each(codecs.filter(([, t]) => t !== CompressionType.None))(
    "%s flag over another codec's bytes: INVALID_RECORD",
    (_name, type) => {
      const other = type === CompressionType.Gzip ? CompressionType.Zstd : CompressionType.Gzip;
      const batch = batchOf(4, { compression: other });
      batch.writeInt16BE((batch.readInt16BE(ATTRIBUTES) & ~7) | type, ATTRIBUTES);
      expect(failure(validateProduceRecords(recrc(batch), policy())).errorCode).toBe(ErrorCode.INVALID_RECORD);
    },
  );

  it.each(codecs)(
    '%s: a header count of 1000 over 2 records (lastOffsetDelta 999 to match): INVALID_RECORD',
    (_name, type) => {
      const batch = batchOf(2, { compression: type });
      batch.writeInt32BE(1000, RECORDS_COUNT);
      batch.writeInt32BE(999, LAST_OFFSET_DELTA);
      const f = failure(validateProduceRecords(recrc(batch), policy()));
      expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
      expect(f.message).toMatch(/premature EOF.*declares 1000 records but holds 2/);
    },
  );

  it('a count that disagrees with lastOffsetDelta: INVALID_RECORD', () => {
    const batch = batchOf(2);
    batch.writeInt32BE(1000, RECORDS_COUNT);
    const f = failure(validateProduceRecords(recrc(batch), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/Inconsistent batch offset range \[0, 1\] and count of records 1000/);
  });

  it('a record length past the end of the batch: INVALID_RECORD', () => {
    const body = Buffer.from([0, 0, 0, 1, 2, 0]); // attributes, ts, offset, key null, value 1 byte, no headers
    const records = Buffer.concat([Buffer.from([(body.length + 10) << 1]), body]); // claims 16 bytes, holds 6
    const f = failure(validateProduceRecords(rawBatch(records, 1), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/record 0: Invalid record size: expected 16 bytes.*only 6 remaining/);
  });

  it.each(codecs)('%s: offsetDeltas out of order: INVALID_RECORD', (_name, type) => {
    const batch = encodeRecordBatch({
      compression: type,
      baseTimestamp: BigInt(NOW),
      records: [
        { value: Buffer.from('a'), offsetDelta: 1 },
        { value: Buffer.from('b'), offsetDelta: 0 },
      ],
    });
    const f = failure(validateProduceRecords(batch, policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/record 0: offsetDelta is 1, expected 0/);
  });

  it('bytes after the declared records: INVALID_RECORD', () => {
    const b = batchOf(2);
    const padded = Buffer.concat([b, Buffer.from([0, 0, 0])]);
    padded.writeInt32BE(padded.length - LOG_OVERHEAD, BATCH_LENGTH);
    const f = failure(validateProduceRecords(recrc(padded), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/records still remaining.*3 bytes/);
  });

  it('a varint longer than 5 bytes: INVALID_RECORD', () => {
    // attributes, ts, offset, then a key length of six continuation bytes
    const body = Buffer.from([0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0]);
    const f = failure(
      validateProduceRecords(rawBatch(Buffer.concat([Buffer.from([body.length << 1]), body]), 1), policy()),
    );
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/varint is longer than 32 bits/);
  });

  it('a varint cut by the end of its record: INVALID_RECORD', () => {
    const body = Buffer.from([0, 0, 0, 0, 0, 0x80]); // header count varint left open
    const f = failure(
      validateProduceRecords(rawBatch(Buffer.concat([Buffer.from([body.length << 1]), body]), 1), policy()),
    );
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/varint runs past the end of the record/);
  });

  it('a negative header count: INVALID_RECORD', () => {
    const body = Buffer.from([0, 0, 0, 1, 1, 1]); // key null, value null, header count -1
    const f = failure(
      validateProduceRecords(rawBatch(Buffer.concat([Buffer.from([body.length << 1]), body]), 1), policy()),
    );
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/invalid number of record headers -1/);
  });
});

describe('batch-level checks', () => {
  it('a bad CRC is CORRUPT_MESSAGE', () => {
    const batch = batchOf(2);
    batch[batch.length - 1]! ^= 0xff;
    expect(failure(validateProduceRecords(batch, policy())).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
  });

  it('two batches in one partition: INVALID_RECORD (Produce v3+ carries exactly one)', () => {
    const f = failure(validateProduceRecords(Buffer.concat([batchOf(1), batchOf(1)]), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/exactly one record batch per partition/);
  });

  it('a baseOffset other than 0: INVALID_RECORD', () => {
    const batch = batchOf(1);
    batch.writeBigInt64BE(5n, BASE_OFFSET);
    expect(failure(validateProduceRecords(batch, policy())).errorCode).toBe(ErrorCode.INVALID_RECORD);
  });

  it('a transactional batch passes (storage checks it against the transaction); a control batch is refused', () => {
    const tx = { producerId: 7n, producerEpoch: 0, baseSequence: 0, isTransactional: true };
    expect(accepted(validateProduceRecords(batchOf(2, tx), policy()))[0]!.header.attributes & 0x10).toBe(0x10);
    const f = failure(validateProduceRecords(batchOf(1, { ...tx, isControl: true }), policy()));
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/not allowed to write control records/);
  });

  it('an idempotent batch without a base sequence: INVALID_RECORD', () => {
    const f = failure(
      validateProduceRecords(batchOf(1, { producerId: 7n, producerEpoch: 0, baseSequence: -1 }), policy()),
    );
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.message).toMatch(/Invalid sequence number -1/);
  });

  it("reads the records as Kafka's batch iterator does: too few bytes or a batch past the end is no batch", () => {
    for (const records of [Buffer.from([1, 2, 3]), batchOf(2).subarray(0, 40)]) {
      const f = failure(validateProduceRecords(records, policy()));
      expect(f).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, withLogStartOffset: false });
      expect(f.message).toMatch(/must have at least one record batch/);
    }
    const tiny = batchOf(1);
    tiny.writeInt32BE(10, 8); // batchLength below the smallest record: corrupt
    expect(failure(validateProduceRecords(tiny, policy()))).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      withLogStartOffset: false,
    });
    // Stray bytes after the batch, too few to be another, are dropped as Kafka's log trims them.
    const batch = batchOf(2);
    const [b] = accepted(validateProduceRecords(Buffer.concat([batch, Buffer.from([9, 9, 9])]), policy()));
    expect(b!.data.equals(batch)).toBe(true);
  });

  it("a magic outside 0-2 is a corrupt batch, as Kafka's iterator finds it, even before the batch is whole", () => {
    const MAGIC_AT = 16;
    for (const magic of [3, -1]) {
      const bad = batchOf(1);
      bad.writeInt8(magic, MAGIC_AT);
      for (const records of [bad, bad.subarray(0, 20)]) {
        const f = failure(validateProduceRecords(records, policy()));
        expect(f).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE, withLogStartOffset: false });
        expect(f.message).toMatch(new RegExp(`Invalid magic found in record: ${magic}`));
      }
    }
    // The same after a good batch: the bytes that follow are a corrupt batch, not a second one.
    const second = batchOf(1);
    second.writeInt8(9, MAGIC_AT);
    const f = failure(validateProduceRecords(Buffer.concat([batchOf(1), second]), policy()));
    expect(f).toMatchObject({ errorCode: ErrorCode.CORRUPT_MESSAGE });
    expect(f.message).toMatch(/Invalid magic found in record: 9/);
  });

  it('zstd on Produce v3-6 is refused before a second batch is looked for, as ProduceRequest.validateRecords does', () => {
    const zstd = batchOf(1);
    zstd.writeInt16BE(zstd.readInt16BE(ATTRIBUTES) | CompressionType.Zstd, ATTRIBUTES);
    const f = failure(validateProduceRecords(Buffer.concat([zstd, batchOf(1)]), policy({ produceVersion: 6 })));
    expect(f.errorCode).toBe(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  });

  it('an empty records field: INVALID_RECORD', () => {
    expect(failure(validateProduceRecords(Buffer.alloc(0), policy())).errorCode).toBe(ErrorCode.INVALID_RECORD);
  });

  it('a batch that decompresses past the bound: MESSAGE_TOO_LARGE, so the producer splits it', () => {
    const batch = batchOf(64, { compression: CompressionType.Zstd });
    const f = failure(validateProduceRecords(batch, policy({ maxDecompressedBytes: 4096 })));
    expect(f.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
  });
});

describe('timestamps (message.timestamp.type, KIP-937 limits)', () => {
  const hour = 3_600_000;
  const mixed = (compression: CompressionType = CompressionType.None) =>
    encodeRecordBatch({
      compression,
      baseTimestamp: BigInt(NOW),
      records: [
        { value: Buffer.from('ok'), timestamp: BigInt(NOW) },
        { value: Buffer.from('too old'), timestamp: BigInt(NOW - 2 * hour) },
        { value: Buffer.from('ok'), timestamp: BigInt(NOW - 10) },
        { value: Buffer.from('too new'), timestamp: BigInt(NOW + 2 * hour) },
      ],
    });

  it.each(codecs)(
    '%s: records outside [now - before, now + after] get INVALID_TIMESTAMP with one record error each',
    (_name, type) => {
      const f = failure(
        validateProduceRecords(
          mixed(type),
          policy({ timestampBeforeMaxMs: BigInt(hour), timestampAfterMaxMs: BigInt(hour) }),
        ),
      );
      expect(f.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
      expect(f.message).toBe('One or more records have been rejected due to invalid timestamp');
      const window = `[${NOW - hour}, ${NOW + hour}]`;
      expect(f.recordErrors).toEqual([
        {
          batchIndex: 1,
          batchIndexErrorMessage: `Timestamp ${NOW - 2 * hour} of message with offset 1 is out of range. The timestamp should be within ${window}`,
        },
        {
          batchIndex: 3,
          batchIndexErrorMessage: `Timestamp ${NOW + 2 * hour} of message with offset 3 is out of range. The timestamp should be within ${window}`,
        },
      ]);
    },
  );

  it("only the limit that is set applies; the window prints as Kafka's long arithmetic does", () => {
    const f = failure(validateProduceRecords(mixed(), policy({ timestampBeforeMaxMs: BigInt(hour) })));
    expect(f.recordErrors.map((e) => e.batchIndex)).toEqual([1]);
    expect(f.recordErrors[0]!.batchIndexErrorMessage).toContain(
      `[${NOW - hour}, ${BigInt.asIntN(64, BigInt(NOW) + LONG_MAX)}]`,
    );
  });

  it('LogAppendTime topics do not check producer timestamps', () => {
    accepted(
      validateProduceRecords(
        mixed(),
        policy({ logAppendTime: true, timestampBeforeMaxMs: 1n, timestampAfterMaxMs: 1n }),
      ),
    );
  });

  it.each(codecs)('%s: a compacted topic refuses records without a key (LogValidator.validateKey)', (_name, type) => {
    const keyless = encodeRecordBatch({
      compression: type,
      records: [0, 1, 2, 3].map((i) => ({
        key: i % 2 === 0 ? Buffer.from(`k${i}`) : null,
        value: Buffer.from(`v${i}`),
        timestamp: BigInt(NOW),
      })),
    });
    const f = failure(validateProduceRecords(keyless, policy({ compacted: true }), 'compacted-3'));
    const message = 'Compacted topic cannot accept message without key in topic partition compacted-3';
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.recordErrors).toEqual([
      { batchIndex: 1, batchIndexErrorMessage: message },
      { batchIndex: 3, batchIndexErrorMessage: message },
    ]);
    expect(f.message).toBe(
      `One or more records have been rejected due to 2 record errors in total, and only showing the first three errors at most: [RecordError(batchIndex=1, message='${message}'), RecordError(batchIndex=3, message='${message}')]`,
    );
    expect(f.withLogStartOffset).toBe(true);
    // Keyed records pass; a topic without compact takes keyless ones.
    accepted(validateProduceRecords(batchOf(3, { compression: type }), policy({ compacted: true }), 'compacted-3'));
    accepted(validateProduceRecords(keyless, policy()));
  });

  it('producePolicy reads compaction from the topic, else the broker default', () => {
    expect(producePolicy({ 'cleanup.policy': 'compact,delete' }, 9, NOW).compacted).toBe(true);
    expect(producePolicy({}, 9, NOW, { 'cleanup.policy': 'compact' }).compacted).toBe(true);
    expect(producePolicy({}, 9, NOW).compacted).toBe(false);
  });

  it('a producer may not flag its batch LogAppendTime on a LogAppendTime topic', () => {
    const batch = batchOf(2, { timestampType: TimestampType.LogAppendTime, maxTimestamp: BigInt(NOW) });
    const f = failure(validateProduceRecords(batch, policy({ logAppendTime: true })));
    expect(f.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(f.recordErrors).toHaveLength(2);
    expect(f.recordErrors[1]!.batchIndexErrorMessage).toMatch(
      /^Invalid timestamp type in message DefaultRecord\(offset=1, timestamp=1700000000000, key=2 bytes, value=\d+ bytes\)\. Producer should not set timestamp type to LogAppendTime\.$/,
    );
  });

  it('on a CreateTime topic a LogAppendTime-flagged batch counts as its maxTimestamp (Kafka checks that one)', () => {
    const batch = batchOf(2, { timestampType: TimestampType.LogAppendTime, maxTimestamp: BigInt(NOW + 5) });
    const [b] = accepted(validateProduceRecords(batch, policy()));
    expect(b!.header.maxTimestamp).toBe(BigInt(NOW + 5));
    const noTime = batchOf(2, { timestampType: TimestampType.LogAppendTime, maxTimestamp: -1n });
    expect(failure(validateProduceRecords(noTime, policy())).errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
  });

  it('producePolicy reads the limits: Kafka 4 defaults, set limits, else message.timestamp.difference.max.ms', () => {
    // KIP-1030: after.max.ms is 1 hour by default since Kafka 4.0; before.max.ms has no limit.
    expect(producePolicy({}, 9, NOW)).toMatchObject({
      timestampBeforeMaxMs: LONG_MAX,
      timestampAfterMaxMs: 3_600_000n,
      logAppendTime: false,
      maxMessageBytes: 1048588,
    });
    const p = producePolicy(
      { 'message.timestamp.difference.max.ms': '5000', 'message.timestamp.after.max.ms': '60000' },
      9,
      NOW,
    );
    expect(p).toMatchObject({ timestampBeforeMaxMs: 5000n, timestampAfterMaxMs: 60000n });
    expect(producePolicy({ 'message.timestamp.difference.max.ms': '5000' }, 9, NOW)).toMatchObject({
      timestampBeforeMaxMs: 5000n,
      timestampAfterMaxMs: 5000n,
    });
    const byDefault = failure(validateProduceRecords(mixed(), producePolicy({}, 9, NOW)));
    expect(byDefault.recordErrors.map((e) => e.batchIndex)).toEqual([3]); // 2 hours ahead; 2 hours back is fine
    const f = failure(validateProduceRecords(mixed(), p));
    expect(f.recordErrors.map((e) => e.batchIndex)).toEqual([1, 3]);
    expect(producePolicy({ 'message.timestamp.type': 'LogAppendTime' }, 9, NOW).logAppendTime).toBe(true);
  });

  it('producePolicy follows the topic configs and broker defaults of each call, with its own version and time', () => {
    // Kafka's defaults (parsed once), then the same call with a dynamic broker default, then a topic override.
    expect(producePolicy({}, 9, NOW)).toMatchObject({ maxMessageBytes: 1048588, produceVersion: 9, nowMs: NOW });
    expect(producePolicy({}, 11, NOW + 5)).toMatchObject({
      maxMessageBytes: 1048588,
      produceVersion: 11,
      nowMs: NOW + 5,
    });
    expect(producePolicy({}, 9, NOW, { 'max.message.bytes': '200' }).maxMessageBytes).toBe(200);
    expect(producePolicy({}, 9, NOW, { 'message.timestamp.type': 'LogAppendTime' }).logAppendTime).toBe(true);
    expect(producePolicy({ 'max.message.bytes': '500' }, 9, NOW).maxMessageBytes).toBe(500);
    expect(producePolicy({ 'max.message.bytes': '500' }, 9, NOW, { 'max.message.bytes': '200' }).maxMessageBytes).toBe(
      500,
    );
    expect(producePolicy({}, 9, NOW)).toMatchObject({ maxMessageBytes: 1048588, logAppendTime: false });
  });
});
