// The record batch codec (protocol/record-batch.ts): header layout, round trips, in-place
// rewrites, splitting, validation and hostile bytes; against kafkajs: record-batch-kafkajs.test.ts.
import fc from 'fast-check';
import { CompressionType } from '../../src/protocol/compression';
import { crc32c } from '../../src/protocol/crc32c';
import { DecodeError, EncodeError } from '../../src/protocol/errors';
import {
  ATTRIBUTES,
  BASE_OFFSET,
  BASE_SEQUENCE,
  BASE_TIMESTAMP,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  CRC,
  LAST_OFFSET_DELTA,
  MAGIC,
  MAX_TIMESTAMP,
  PARTITION_LEADER_EPOCH,
  PRODUCER_EPOCH,
  PRODUCER_ID,
  RECORDS_COUNT,
  TimestampType,
  compression,
  decodeRecords,
  encodeRecordBatch,
  isControl,
  isTransactional,
  readBatchHeader,
  setBaseOffset,
  setPartitionLeaderEpoch,
  splitBatches,
  timestampType,
  verifyBatchCrc,
} from '../../src/protocol/record-batch';
import { BASE_TS, batchArb, catchError, codecs, sampleBatch } from './record-batch-kit';

describe('header layout', () => {
  const batch = encodeRecordBatch({
    baseOffset: 0x0102030405060708n,
    partitionLeaderEpoch: 7,
    compression: CompressionType.Gzip,
    timestampType: TimestampType.LogAppendTime,
    isTransactional: true,
    baseTimestamp: BASE_TS,
    maxTimestamp: BASE_TS + 99n,
    producerId: 42n,
    producerEpoch: 3,
    baseSequence: 1000,
    records: [{ value: Buffer.from('a') }, { value: Buffer.from('b'), timestampDelta: 5 }],
  });

  it('puts every field at its documented offset', () => {
    expect(BATCH_HEADER_SIZE).toBe(61);
    expect(batch.readBigInt64BE(BASE_OFFSET)).toBe(0x0102030405060708n);
    expect(batch.readInt32BE(BATCH_LENGTH)).toBe(batch.length - 12);
    expect(batch.readInt32BE(PARTITION_LEADER_EPOCH)).toBe(7);
    expect(batch.readInt8(MAGIC)).toBe(2);
    expect(batch.readUInt32BE(CRC)).toBe(crc32c(batch, ATTRIBUTES));
    expect(batch.readInt16BE(ATTRIBUTES)).toBe(0x1 | 0x8 | 0x10);
    expect(batch.readInt32BE(LAST_OFFSET_DELTA)).toBe(1);
    expect(batch.readBigInt64BE(BASE_TIMESTAMP)).toBe(BASE_TS);
    expect(batch.readBigInt64BE(MAX_TIMESTAMP)).toBe(BASE_TS + 99n);
    expect(batch.readBigInt64BE(PRODUCER_ID)).toBe(42n);
    expect(batch.readInt16BE(PRODUCER_EPOCH)).toBe(3);
    expect(batch.readInt32BE(BASE_SEQUENCE)).toBe(1000);
    expect(batch.readInt32BE(RECORDS_COUNT)).toBe(2);
  });

  it('readBatchHeader reads them back, and the attribute helpers decode the bits', () => {
    const h = readBatchHeader(batch);
    expect(h).toEqual({
      baseOffset: 0x0102030405060708n,
      batchLength: batch.length - 12,
      partitionLeaderEpoch: 7,
      magic: 2,
      crc: crc32c(batch, ATTRIBUTES),
      attributes: 0x19,
      lastOffsetDelta: 1,
      baseTimestamp: BASE_TS,
      maxTimestamp: BASE_TS + 99n,
      producerId: 42n,
      producerEpoch: 3,
      baseSequence: 1000,
      recordsCount: 2,
    });
    expect(compression(h.attributes)).toBe(CompressionType.Gzip);
    expect(timestampType(h.attributes)).toBe(TimestampType.LogAppendTime);
    expect(isTransactional(h.attributes)).toBe(true);
    expect(isControl(h.attributes)).toBe(false);
    expect(isControl(encodeRecordBatch({ isControl: true, records: [{ value: null }] }).readInt16BE(ATTRIBUTES))).toBe(
      true,
    );
  });

  it('defaults to what a non-idempotent producer sends', () => {
    const h = readBatchHeader(encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BASE_TS + 5n }] }));
    expect(h).toMatchObject({
      baseOffset: 0n,
      partitionLeaderEpoch: -1,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      attributes: 0,
    });
    expect(h.baseTimestamp).toBe(BASE_TS + 5n); // the first record's timestamp
  });

  it('reads a header at an offset inside a larger buffer', () => {
    const padded = Buffer.concat([Buffer.alloc(5), batch]);
    expect(readBatchHeader(padded, 5).producerId).toBe(42n);
  });

  it('rejects other magic values, naming the value seen', () => {
    const legacy = Buffer.from(batch);
    legacy[MAGIC] = 1;
    const err = catchError(() => readBatchHeader(legacy));
    expect(err).toBeInstanceOf(DecodeError);
    expect((err as Error).message).toMatch(/magic is 1, expected 2/);
  });

  it('rejects a batchLength that does not fit the buffer or the header', () => {
    expect(catchError(() => readBatchHeader(batch.subarray(0, batch.length - 1)))).toBeInstanceOf(DecodeError);
    expect(catchError(() => readBatchHeader(batch.subarray(0, 40)))).toBeInstanceOf(DecodeError);
    const short = Buffer.from(batch);
    short.writeInt32BE(48, BATCH_LENGTH);
    expect((catchError(() => readBatchHeader(short)) as Error).message).toMatch(/length 48 is less than/);
  });
});

describe('encode → decode round trip', () => {
  it('holds for random records with every codec', () => {
    fc.assert(
      fc.property(batchArb, (input) => {
        const batch = encodeRecordBatch({ ...input, baseTimestamp: BASE_TS });
        const h = readBatchHeader(batch);
        expect(verifyBatchCrc(batch)).toBe(true);
        expect(h.batchLength).toBe(batch.length - 12);
        expect(h.recordsCount).toBe(input.records.length);
        expect(h.lastOffsetDelta).toBe(input.records.length - 1);
        const maxDelta = Math.max(...input.records.map((r) => r.timestampDelta));
        expect(h.maxTimestamp).toBe(BASE_TS + BigInt(maxDelta));
        expect(compression(h.attributes)).toBe(input.compression);
        expect(isTransactional(h.attributes)).toBe(input.isTransactional);
        expect({ producerId: h.producerId, producerEpoch: h.producerEpoch, baseSequence: h.baseSequence }).toEqual({
          producerId: input.producerId,
          producerEpoch: input.producerEpoch,
          baseSequence: input.baseSequence,
        });
        expect(decodeRecords(batch)).toEqual(input.records.map((r, i) => ({ ...r, attributes: 0, offsetDelta: i })));
      }),
      { numRuns: 200 },
    );
  });

  it('computes timestamp deltas from absolute timestamps', () => {
    const batch = encodeRecordBatch({
      records: [
        { value: null, timestamp: BASE_TS + 10n },
        { value: null, timestamp: BASE_TS + 30n },
        { value: null, timestamp: BASE_TS },
      ],
    });
    expect(readBatchHeader(batch).baseTimestamp).toBe(BASE_TS + 10n);
    expect(readBatchHeader(batch).maxTimestamp).toBe(BASE_TS + 30n);
    expect(decodeRecords(batch).map((r) => r.timestampDelta)).toEqual([0, 20, -10]);
  });

  it('refuses an empty batch', () => {
    expect(() => encodeRecordBatch({ records: [] })).toThrow(EncodeError);
  });

  it('returns keys and values as views into an uncompressed batch (no copy)', () => {
    const batch = sampleBatch();
    const [first] = decodeRecords(batch);
    expect(first!.key!.buffer).toBe(batch.buffer);
    expect(first!.key!.toString()).toBe('key-0');
  });
});

describe('in-place rewrites', () => {
  it.each(codecs)('%s: setBaseOffset and setPartitionLeaderEpoch keep the CRC valid', (_name, type) => {
    const batch = sampleBatch(type);
    const before = decodeRecords(batch);
    const crc = batch.readUInt32BE(CRC);
    setBaseOffset(batch, 123_456_789_012n);
    setPartitionLeaderEpoch(batch, 17);
    expect(readBatchHeader(batch)).toMatchObject({ baseOffset: 123_456_789_012n, partitionLeaderEpoch: 17, crc });
    expect(verifyBatchCrc(batch)).toBe(true);
    expect(decodeRecords(batch)).toEqual(before);
  });

  it('verifyBatchCrc notices a change in any covered byte, and only those', () => {
    const batch = sampleBatch();
    for (let i = 0; i < batch.length; i++) {
      const copy = Buffer.from(batch);
      copy[i] = copy[i]! ^ 0x01;
      if (i === MAGIC || (i >= BATCH_LENGTH && i < PARTITION_LEADER_EPOCH)) continue; // structural, checked below
      expect([i, verifyBatchCrc(copy)]).toEqual([i, i < CRC]); // the CRC field itself is not covered, but is compared
    }
    const badMagic = Buffer.from(batch);
    badMagic[MAGIC] = 0;
    expect(catchError(() => verifyBatchCrc(badMagic))).toBeInstanceOf(DecodeError);
  });
});

describe('splitBatches', () => {
  it('returns zero-copy views and reports a partial trailing batch', () => {
    const a = sampleBatch(CompressionType.None, 2);
    const b = sampleBatch(CompressionType.Zstd, 5);
    const c = sampleBatch(CompressionType.Gzip, 1);
    for (const cut of [0, 1, 11, 12, 40, c.length - 1]) {
      const records = Buffer.concat([a, b, c.subarray(0, cut)]);
      const { batches, trailingBytes } = splitBatches(records);
      expect(batches.map((x) => Buffer.from(x))).toEqual([a, b]);
      expect(batches[1]!.buffer).toBe(records.buffer);
      expect(batches[1]!.byteOffset).toBe(records.byteOffset + a.length);
      expect(trailingBytes).toBe(cut);
    }
    expect(splitBatches(Buffer.concat([a, b, c])).batches).toHaveLength(3);
    expect(splitBatches(Buffer.alloc(0))).toEqual({ batches: [], trailingBytes: 0 });
  });

  it.each([-1, 0, 48, -(2 ** 31)])('rejects batchLength %d', (len) => {
    const records = Buffer.concat([sampleBatch(), sampleBatch()]);
    records.writeInt32BE(len, sampleBatch().length + BATCH_LENGTH);
    const err = catchError(() => splitBatches(records));
    expect(err).toBeInstanceOf(DecodeError);
    expect((err as Error).message).toContain(String(len));
  });
});

describe('decodeRecords validation', () => {
  function withCount(batch: Buffer, count: number): Buffer {
    const copy = Buffer.from(batch);
    copy.writeInt32BE(count, RECORDS_COUNT);
    return copy;
  }

  it.each(codecs)('%s: a recordsCount that does not match the records is a DecodeError', (_name, type) => {
    const batch = sampleBatch(type, 3);
    for (const count of [-1, 2, 4, 2 ** 31 - 1]) {
      expect([count, catchError(() => decodeRecords(withCount(batch, count)))]).toEqual([
        count,
        expect.any(DecodeError),
      ]);
    }
  });

  it('a record whose length disagrees with its fields is a DecodeError', () => {
    const batch = encodeRecordBatch({ records: [{ value: Buffer.from('abc') }] });
    const copy = Buffer.from(batch);
    copy[BATCH_HEADER_SIZE] = copy[BATCH_HEADER_SIZE]! + 2; // zigzag length + 1
    expect(catchError(() => decodeRecords(copy))).toBeInstanceOf(DecodeError);
  });

  it('enforces the decompression limit', () => {
    const big = encodeRecordBatch({ compression: CompressionType.Lz4, records: [{ value: Buffer.alloc(2_000_000) }] });
    expect(catchError(() => decodeRecords(big, { maxDecompressedBytes: 1_000_000 }))).toBeInstanceOf(DecodeError);
    expect(decodeRecords(big)[0]!.value!.length).toBe(2_000_000);
  });
});

describe('hostile bytes', () => {
  /** Everything a broker does with untrusted batch bytes; any throw must be a DecodeError. */
  function handle(bytes: Buffer): void {
    for (const step of [
      () => splitBatches(bytes),
      () => readBatchHeader(bytes),
      () => verifyBatchCrc(bytes),
      () => decodeRecords(bytes, { maxDecompressedBytes: 1 << 20 }),
    ]) {
      const err = catchError(step);
      if (err !== undefined && !(err instanceof DecodeError)) throw err;
    }
  }

  const validBatch = batchArb.map((input) => encodeRecordBatch({ ...input, baseTimestamp: BASE_TS }));

  it('random bytes throw only DecodeError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (a) => handle(Buffer.from(a))),
      { numRuns: 500 },
    );
  });

  it('random bytes behind a plausible header throw only DecodeError', () => {
    const arb = fc.tuple(
      fc.constantFrom(...Object.values(CompressionType), 5, 7),
      fc.integer({ min: -1, max: 50 }),
      fc.uint8Array({ maxLength: 300 }),
    );
    fc.assert(
      fc.property(arb, ([codec, count, body]) => {
        const batch = Buffer.concat([Buffer.alloc(BATCH_HEADER_SIZE), body]);
        batch.writeInt32BE(batch.length - 12, BATCH_LENGTH);
        batch[MAGIC] = 2;
        batch.writeInt16BE(codec, ATTRIBUTES);
        batch.writeInt32BE(count, RECORDS_COUNT);
        handle(batch);
      }),
      { numRuns: 500 },
    );
  });

  it('mutated valid batches (byte flips, truncation, splices) throw only DecodeError', () => {
    const mutation = fc.oneof(
      fc
        .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })
        .map((flips) => (b: Buffer) => {
          const copy = Buffer.from(b);
          for (const [at, v] of flips) copy[at % copy.length] = v;
          return copy;
        }),
      fc.nat().map((n) => (b: Buffer) => b.subarray(0, n % b.length)),
      fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([at, ins]) => (b: Buffer) => {
        const copy = Buffer.concat([b.subarray(0, at % b.length), Buffer.from(ins), b.subarray(at % b.length)]);
        copy.writeInt32BE(copy.length - 12, BATCH_LENGTH); // keep the frame consistent so decoding goes deeper
        return copy;
      }),
    );
    fc.assert(
      fc.property(validBatch, mutation, (batch, mutate) => handle(mutate(batch))),
      { numRuns: 1000 },
    );
  });
});
