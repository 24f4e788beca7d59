// Produce validation as Kafka's LogValidator does it: every record decoded before a batch is
// stored, maxTimestamp computed from the records (the timestamp checks: produce-validation-timestamps.test.ts).
import { CompressionType } from '../../src/protocol/compression';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  ATTRIBUTES,
  BASE_OFFSET,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  LAST_OFFSET_DELTA,
  LOG_OVERHEAD,
  RECORDS_COUNT,
  encodeRecordBatch,
} from '../../src/protocol/record-batch';
import { validateProduceRecords } from '../../src/server/produce-validation';
import { accepted, batchOf, codecs, failure, NOW, policy, rawBatch, recrc } from './produce-validation-kit';

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
