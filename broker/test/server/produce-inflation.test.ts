// Decompression bombs in produce validation (issue 29): on the loop, inflating is bounded by what the
// batch states (records count x max.message.bytes); a batch stating more, or inflating past it, is
// inflated off the loop up to the ceiling (64 MiB), the loop turning meanwhile, and accepted as Kafka
// accepts it when its records are well formed.
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import * as zstd from 'zstd-napi';
import { CompressionType, statedSize } from '../../src/protocol/compression';
import { crc32c } from '../../src/protocol/crc32c';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  ATTRIBUTES,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  CRC,
  LAST_OFFSET_DELTA,
  LOG_OVERHEAD,
  RECORDS_COUNT,
  encodeRecordBatch,
} from '../../src/protocol/record-batch';
import { RecordFraming } from '../../src/protocol/record-framing';
import {
  GZIP_PROBE_ABOVE_BYTES,
  INFLATE_ON_LOOP_MAX_BYTES,
  inflateOffLoop,
  inflationLimit,
} from '../../src/server/produce-inflation';
import type { BatchCheck } from '../../src/server/produce-batch-check';
import type { ProducePolicy } from '../../src/server/produce-policy';
import { validateProduceRecords } from '../../src/server/produce-validation';
import { loopTurnsDuring } from '../support/loop-turns';

const NOW = 1_700_000_000_000;
const MiB = 1024 * 1024;

function policy(o: Partial<ProducePolicy> = {}): ProducePolicy {
  return {
    maxMessageBytes: 1048588,
    produceVersion: 9,
    logAppendTime: false,
    timestampBeforeMaxMs: 9223372036854775807n,
    timestampAfterMaxMs: 9223372036854775807n,
    compacted: false,
    nowMs: NOW,
    inflateOnLoopMaxBytes: INFLATE_ON_LOOP_MAX_BYTES, // as producePolicy sets it
    ...o,
  };
}

/** A batch claiming `count` records whose records section is `compressed` under `codec`. */
function bombBatch(codec: CompressionType, compressed: Buffer, count: number): Buffer {
  const header = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BigInt(NOW) }] }).subarray(
    0,
    BATCH_HEADER_SIZE,
  );
  const b = Buffer.concat([header, compressed]);
  b.writeInt32BE(b.length - LOG_OVERHEAD, BATCH_LENGTH);
  b.writeInt32BE(count, RECORDS_COUNT);
  b.writeInt32BE(count - 1, LAST_OFFSET_DELTA);
  b.writeInt16BE(b.readInt16BE(ATTRIBUTES) | codec, ATTRIBUTES);
  b.writeUInt32BE(crc32c(b, ATTRIBUTES), CRC);
  return b;
}

function refused(check: BatchCheck) {
  if (check.ok) throw new Error('expected the batch to be refused');
  return check;
}

const bytesFed = (fed: jest.SpyInstance<void, [Buffer]>) => fed.mock.calls.reduce((n, [chunk]) => n + chunk.length, 0);

describe('the inflation limit a batch states', () => {
  it('is its records count times max.message.bytes, under the ceiling', () => {
    expect(inflationLimit(1, 1048588, 64 * MiB)).toBe(1048588);
    expect(inflationLimit(10, 1000, 64 * MiB)).toBe(10_000);
    expect(inflationLimit(1_000_000, 1048588, 64 * MiB)).toBe(64 * MiB);
  });
});

describe('a gzip bomb', () => {
  const bomb = zlib.gzipSync(Buffer.alloc(64 * MiB), { level: 9 }); // about 64 KB

  it('stating one record is refused on the loop after inflating its first bytes only', () => {
    const check = refused(validateProduceRecords(bombBatch(CompressionType.Gzip, bomb, 1), policy()));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(check.message).toMatch(/record 0: Invalid record size: 0 bytes/);
    expect(check.inflate).toBeUndefined();
  });

  it('is probed only when it may inflate past 256 KiB on the loop; a smaller one is inflated whole (the probe was 13 % of a 31-record batch)', () => {
    const fed = jest.spyOn(RecordFraming.prototype, 'feed');
    const small = zlib.gzipSync(Buffer.alloc(GZIP_PROBE_ABOVE_BYTES), { level: 9 }); // states 256 KiB
    const check = refused(validateProduceRecords(bombBatch(CompressionType.Gzip, small, 1000), policy()));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD); // the record scan finds the zeros
    expect(fed).not.toHaveBeenCalled();
    const larger = zlib.gzipSync(Buffer.alloc(GZIP_PROBE_ABOVE_BYTES + 1), { level: 9 });
    refused(validateProduceRecords(bombBatch(CompressionType.Gzip, larger, 1000), policy()));
    expect(fed).toHaveBeenCalledTimes(1);
    fed.mockRestore();
  });

  it('stating one plausible record stops at max.message.bytes on the loop, then is refused off it at its first fault', async () => {
    const fed = jest.spyOn(RecordFraming.prototype, 'feed');
    const claim = Buffer.from([0x80, 0x89, 0x7a]); // zigzag varint of 1,000,000: a plausible record length
    const plausible = zlib.gzipSync(Buffer.concat([claim, Buffer.alloc(64 * MiB)]), { level: 9 });
    const batch = bombBatch(CompressionType.Gzip, plausible, 1);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toMatchObject({ codec: CompressionType.Gzip, limit: 64 * MiB });
    const check = refused(validateProduceRecords(batch, policy(), '', await inflateOffLoop(first.inflate!)));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(check.message).toMatch(/bytes after the 1 records the batch states/);
    // Off the loop, the framing stopped a chunk past the stated record: not 64 MiB.
    expect(bytesFed(fed)).toBeLessThanOrEqual(1_000_000 + 2 * 256 * 1024);
    fed.mockRestore();
  });

  it('stating many records is inflated off the loop and stops at the first bad record', async () => {
    const fed = jest.spyOn(RecordFraming.prototype, 'feed');
    const batch = bombBatch(CompressionType.Gzip, bomb, 32);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toMatchObject({ codec: CompressionType.Gzip, limit: 64 * MiB });
    expect(first.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR); // what a caller ignoring `inflate` answers

    const inflated = await inflateOffLoop(first.inflate!);
    const second = refused(validateProduceRecords(batch, policy(), '', inflated));
    expect(second.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(second.message).toMatch(/record 0: Invalid record size: 0 bytes/);
    // A chunk of zeros or two was enough: not 32 MiB.
    expect(bytesFed(fed)).toBeLessThanOrEqual(2 * 256 * 1024);
    fed.mockRestore();
  });

  it('of records each claiming more than max.message.bytes is inflated past them and refused at its first fault', async () => {
    const fed = jest.spyOn(RecordFraming.prototype, 'feed');
    const claim = Buffer.from([0x80, 0x80, 0x80, 0x02]); // zigzag varint of 2 MiB
    const bigRecords = zlib.gzipSync(Buffer.concat([claim, Buffer.alloc(32 * MiB)]), { level: 9 });
    const batch = bombBatch(CompressionType.Gzip, bigRecords, 32);
    const first = refused(validateProduceRecords(batch, policy()));
    const check = refused(validateProduceRecords(batch, policy(), '', await inflateOffLoop(first.inflate!)));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(check.message).toMatch(/record 1: Invalid record size: 0 bytes/);
    expect(bytesFed(fed)).toBeLessThanOrEqual(2 * MiB + 2 * 256 * 1024);
    fed.mockRestore();
  });

  it('inflating past the ceiling is MESSAGE_TOO_LARGE', async () => {
    const ceiling = policy({ maxDecompressedBytes: 4 * MiB }); // the ceiling is 64 MiB in the broker
    const claim = Buffer.from([0x80, 0x80, 0x80, 0x04]); // zigzag varint of 4 MiB: one record past the ceiling
    const huge = zlib.gzipSync(Buffer.concat([claim, Buffer.alloc(4 * MiB)]), { level: 9 });
    const batch = bombBatch(CompressionType.Gzip, huge, 1);
    const first = refused(validateProduceRecords(batch, ceiling));
    expect(first.inflate).toMatchObject({ limit: 4 * MiB });
    const check = refused(validateProduceRecords(batch, ceiling, '', await inflateOffLoop(first.inflate!)));
    expect(check.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(check.message).toMatch(/decompression limit of 4194304 bytes/);
  });
});

describe('records larger than max.message.bytes that compress well (franz-go TestConsumeMaxDecompressBatchBytes)', () => {
  // Kafka bounds the compressed batch only: three 1 MiB records of zeros gzip to a few KB and are
  // stored. franz-go sends them (its ProducerBatchMaxBytes raised to 4 MiB); Java and librdkafka
  // refuse such a record before compressing it.
  const records = Array.from({ length: 3 }, () => ({ value: Buffer.alloc(MiB), timestamp: BigInt(NOW) }));
  const batch = encodeRecordBatch({ compression: CompressionType.Gzip, records });

  it('are inflated off the loop and accepted', async () => {
    expect(batch.length).toBeLessThan(64 * 1024);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toMatchObject({ limit: 64 * MiB });
    expect(validateProduceRecords(batch, policy(), '', await inflateOffLoop(first.inflate!)).ok).toBe(true);
  });

  it('are accepted by a caller that validates without an off-loop step', () => {
    expect(validateProduceRecords(batch, policy({ inflateOnLoopMaxBytes: undefined })).ok).toBe(true);
  });

  it('one such record alone, within the on-loop budget, is first tried on the loop', async () => {
    const one = encodeRecordBatch({
      compression: CompressionType.Gzip,
      records: [{ value: Buffer.alloc(MiB + 100), timestamp: BigInt(NOW) }],
    });
    const first = refused(validateProduceRecords(one, policy()));
    expect(first.inflate).toMatchObject({ limit: 64 * MiB });
    expect(validateProduceRecords(one, policy(), '', await inflateOffLoop(first.inflate!)).ok).toBe(true);
  });
});

describe('a legitimately large compressed batch', () => {
  it.each([CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd])(
    'codec %s: inflated off the loop, which turns meanwhile, then accepted',
    async (codec) => {
      const records = Array.from({ length: 8 }, (_, i) => ({
        value: Buffer.alloc(400_000, 97 + i),
        timestamp: BigInt(NOW),
      }));
      const batch = encodeRecordBatch({ compression: codec, records });
      expect(batch.length).toBeLessThan(1048588);
      const first = refused(validateProduceRecords(batch, policy()));
      expect(first.inflate!.limit).toBeGreaterThan(INFLATE_ON_LOOP_MAX_BYTES);
      if (codec === CompressionType.Lz4) {
        // One job in libuv's threadpool: its answer comes back through the loop, never on this
        // tick; but a fast job may be back before the loop reaches its first setImmediate, so
        // counting turns would race. What is certain: nothing is inflated synchronously.
        let settled = false;
        const pending = inflateOffLoop(first.inflate!).finally(() => (settled = true));
        for (let i = 0; i < 20; i++) await Promise.resolve();
        expect(settled).toBe(false);
        expect(validateProduceRecords(batch, policy(), '', await pending).ok).toBe(true);
        return;
      }
      const { result: inflated, turns } = await loopTurnsDuring(() => inflateOffLoop(first.inflate!));
      expect(turns).toBeGreaterThan(0); // 3.2 MB take several chunks, the loop turning between them
      const check = validateProduceRecords(batch, policy(), '', inflated);
      expect(check.ok).toBe(true);
    },
  );

  it('a malformed one is INVALID_RECORD, on the loop (it states no size) and off it', async () => {
    const batch = bombBatch(CompressionType.Gzip, Buffer.from('not gzip at all'), 8);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toBeUndefined();
    expect(first.errorCode).toBe(ErrorCode.INVALID_RECORD);
    const inflated = await inflateOffLoop({
      codec: CompressionType.Gzip,
      compressed: batch.subarray(BATCH_HEADER_SIZE),
      limit: 64 * MiB,
      recordsCount: 8,
      maxRecordBytes: 64 * MiB,
    });
    const check = refused(validateProduceRecords(batch, policy(), '', inflated));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD);
  });

  it('a small batch is still inflated on the loop', () => {
    const batch = encodeRecordBatch({
      compression: CompressionType.Gzip,
      records: [{ value: Buffer.alloc(1000), timestamp: BigInt(NOW) }],
    });
    expect(validateProduceRecords(batch, policy()).ok).toBe(true);
  });
});

describe('a compressed batch that states a small size (issue 33)', () => {
  const records = (n: number, bytes: number) =>
    Array.from({ length: n }, (_, i) => ({ value: Buffer.alloc(bytes, 97 + (i % 26)), timestamp: BigInt(NOW) }));

  it.each([CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd])(
    'codec %s: 16 records of 1 KiB are inflated on the loop, though their bound is not',
    (codec) => {
      const batch = encodeRecordBatch({ compression: codec, records: records(16, 1024) });
      expect(inflationLimit(16, policy().maxMessageBytes, 64 * MiB)).toBeGreaterThan(INFLATE_ON_LOOP_MAX_BYTES);
      expect(validateProduceRecords(batch, policy()).ok).toBe(true);
    },
  );

  /** The records section as zstd-jni (the Java producer) writes it: a streamed frame without a content size. */
  async function zstdStreamed(recs: Buffer): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of Readable.from([recs]).pipe(new zstd.CompressStream())) chunks.push(c as Buffer);
    const framed = Buffer.concat(chunks);
    expect(statedSize(CompressionType.Zstd, framed)).toBeUndefined();
    return framed;
  }
  const recordsSection = (n: number, bytes: number) =>
    encodeRecordBatch({ records: records(n, bytes) }).subarray(BATCH_HEADER_SIZE);

  it('a zstd frame without a content size (the Java producer) is inflated on the loop', async () => {
    const batch = bombBatch(CompressionType.Zstd, await zstdStreamed(recordsSection(16, 1024)), 16);
    expect(validateProduceRecords(batch, policy()).ok).toBe(true);
  });

  it('one without a content size that inflates past the on-loop budget is inflated off the loop, then accepted', async () => {
    const n = Math.ceil((INFLATE_ON_LOOP_MAX_BYTES + 1) / 100_000);
    const batch = bombBatch(CompressionType.Zstd, await zstdStreamed(recordsSection(n, 100_000)), n);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toBeDefined();
    expect(validateProduceRecords(batch, policy(), '', await inflateOffLoop(first.inflate!)).ok).toBe(true);
  });

  it('a zstd bomb without a content size inflates at most the on-loop budget on the loop, then is refused off it', async () => {
    const batch = bombBatch(CompressionType.Zstd, await zstdStreamed(Buffer.alloc(64 * MiB)), 1000);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toBeDefined();
    const check = refused(validateProduceRecords(batch, policy(), '', await inflateOffLoop(first.inflate!)));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(check.message).toMatch(/Invalid record size: 0 bytes/);
  });

  it('a gzip trailer stating less than the data holds is inflated off the loop, as before', async () => {
    const batch = encodeRecordBatch({ compression: CompressionType.Gzip, records: records(16, 1024) });
    batch.writeUInt32LE(100, batch.length - 4); // ISIZE
    batch.writeUInt32BE(crc32c(batch, ATTRIBUTES), CRC);
    const first = refused(validateProduceRecords(batch, policy()));
    expect(first.inflate).toBeDefined();
    const check = refused(validateProduceRecords(batch, policy(), '', await inflateOffLoop(first.inflate!)));
    expect(check.errorCode).toBe(ErrorCode.INVALID_RECORD);
  });

  it('a record over max.message.bytes is accepted on the loop too, as off it (Kafka bounds the compressed batch)', () => {
    const batch = encodeRecordBatch({
      compression: CompressionType.Zstd,
      records: [...records(1, 150_000), ...records(40, 100)],
    });
    const check = validateProduceRecords(batch, policy({ maxMessageBytes: 100_000 }));
    expect(check.ok).toBe(true);
  });
});
