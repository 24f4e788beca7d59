import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import * as lz4 from 'lz4-napi';
import * as snappy from 'snappy';
import * as zstd from 'zstd-napi';
import { CompressionType, DEFAULT_MAX_DECOMPRESSED_BYTES, compress, decompress } from '../../src/protocol/compression';
import { decompressOffLoop } from '../../src/protocol/decompress-off-loop';
import { DecodeError, EncodeError } from '../../src/protocol/errors';
import { itWithTools } from '../support/external-tools';

const codecs = Object.entries(CompressionType) as [string, CompressionType][];
const MiB = 1024 * 1024;

function expectDecodeError(fn: () => unknown, message?: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(DecodeError);
  if (message) expect((thrown as Error).message).toMatch(message);
}

/** Compressible but not trivial: repeated text with a counter. */
function sampleText(bytes: number): Buffer {
  let s = '';
  for (let i = 0; s.length < bytes; i++) s += `record ${i} of the sample, `;
  return Buffer.from(s.slice(0, bytes));
}

describe('compress/decompress round trip', () => {
  it.each(codecs)('%s: random bytes', (_name, type) => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (bytes) => {
        const data = Buffer.from(bytes);
        expect(decompress(type, compress(type, data)).equals(data)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it.each(codecs)('%s: 300 KiB of text (several blocks)', (_name, type) => {
    const data = sampleText(300 * 1024);
    const packed = compress(type, data);
    if (type !== CompressionType.None) expect(packed.length).toBeLessThan(data.length / 2);
    expect(decompress(type, packed).equals(data)).toBe(true);
  });

  it('rejects unknown codec ids: DecodeError from the wire, EncodeError from us', () => {
    expectDecodeError(() => decompress(5, Buffer.from('x')), /unknown compression type 5/);
    expect(() => compress(7 as CompressionType, Buffer.from('x'))).toThrow(EncodeError);
  });

  it.each(codecs.filter(([, t]) => t !== CompressionType.None))(
    '%s: garbage input throws only DecodeError',
    (_name, type) => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), (bytes) => {
          try {
            decompress(type, Buffer.from(bytes), MiB);
          } catch (err) {
            expect(err).toBeInstanceOf(DecodeError);
          }
        }),
        { numRuns: 300 },
      );
    },
  );
});

describe('gzip', () => {
  it('reads what zlib (and so the Java GZIPOutputStream format) writes', () => {
    const data = sampleText(10_000);
    expect(decompress(CompressionType.Gzip, zlib.gzipSync(data, { level: 9 })).equals(data)).toBe(true);
  });
});

describe('snappy', () => {
  const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);

  function xerialHeader(): Buffer {
    const h = Buffer.alloc(16);
    XERIAL_MAGIC.copy(h);
    h.writeInt32BE(1, 8);
    h.writeInt32BE(1, 12);
    return h;
  }
  function xerialBlock(raw: Buffer): Buffer {
    const block = snappy.compressSync(raw);
    const len = Buffer.alloc(4);
    len.writeInt32BE(block.length);
    return Buffer.concat([len, block]);
  }

  it('writes snappy-java framing: 16-byte header, then 32 KiB blocks', () => {
    const data = sampleText(100_000);
    const packed = compress(CompressionType.Snappy, data);
    expect(packed.subarray(0, 16).equals(xerialHeader())).toBe(true);
    const blockInputs: number[] = [];
    for (let at = 16; at < packed.length;) {
      const len = packed.readInt32BE(at);
      const raw = snappy.uncompressSync(packed.subarray(at + 4, at + 4 + len)) as Buffer;
      blockInputs.push(raw.length);
      at += 4 + len;
    }
    expect(blockInputs).toEqual([32768, 32768, 32768, 100_000 - 3 * 32768]);
  });

  it('reads raw snappy (librdkafka) and xerial framing (Java)', () => {
    const data = sampleText(70_000);
    expect(decompress(CompressionType.Snappy, snappy.compressSync(data)).equals(data)).toBe(true);
    const framed = Buffer.concat([
      xerialHeader(),
      xerialBlock(data.subarray(0, 40_000)),
      xerialBlock(data.subarray(40_000)),
    ]);
    expect(decompress(CompressionType.Snappy, framed).equals(data)).toBe(true);
  });

  it('reads concatenated xerial streams, as snappy-java does', () => {
    const a = Buffer.from('first stream ');
    const b = Buffer.from('second stream');
    const framed = Buffer.concat([xerialHeader(), xerialBlock(a), xerialHeader(), xerialBlock(b)]);
    expect(decompress(CompressionType.Snappy, framed).toString()).toBe('first stream second stream');
  });

  it('rejects a truncated xerial block', () => {
    const framed = compress(CompressionType.Snappy, sampleText(1000));
    expectDecodeError(
      () => decompress(CompressionType.Snappy, framed.subarray(0, framed.length - 3)),
      /xerial snappy block/,
    );
    expectDecodeError(() => decompress(CompressionType.Snappy, framed.subarray(0, 18)), /truncated/);
  });
});

// xxHash32, for hand-building LZ4 frames (header and content checksums).
function xxh32(buf: Buffer, seed = 0): number {
  const P1 = 2654435761,
    P2 = 2246822519,
    P3 = 3266489917,
    P4 = 668265263,
    P5 = 374761393;
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  const round = (acc: number, input: number) => Math.imul(rotl((acc + Math.imul(input, P2)) >>> 0, 13), P1) >>> 0;
  let i = 0;
  let h: number;
  if (buf.length >= 16) {
    let v1 = (seed + P1 + P2) >>> 0,
      v2 = (seed + P2) >>> 0,
      v3 = seed >>> 0,
      v4 = (seed - P1) >>> 0;
    for (; i <= buf.length - 16; i += 16) {
      v1 = round(v1, buf.readUInt32LE(i));
      v2 = round(v2, buf.readUInt32LE(i + 4));
      v3 = round(v3, buf.readUInt32LE(i + 8));
      v4 = round(v4, buf.readUInt32LE(i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else {
    h = (seed + P5) >>> 0;
  }
  h = (h + buf.length) >>> 0;
  for (; i + 4 <= buf.length; i += 4) h = Math.imul(rotl((h + Math.imul(buf.readUInt32LE(i), P3)) >>> 0, 17), P4) >>> 0;
  for (; i < buf.length; i++) h = Math.imul(rotl((h + Math.imul(buf[i]!, P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

describe('lz4 (frame format)', () => {
  it('writes a frame that Kafka readers accept: version 01, independent blocks, valid header checksum', () => {
    const packed = compress(CompressionType.Lz4, sampleText(100));
    expect(packed.readUInt32LE(0)).toBe(0x184d2204);
    const flg = packed[4]!;
    expect(flg >> 6).toBe(1); // version
    expect(flg & 0x20).toBe(0x20); // block independence (KafkaLZ4BlockInputStream decodes blocks alone)
    expect(flg & 0x01).toBe(0); // no dictionary
    const descriptorEnd = flg & 0x08 ? 14 : 6;
    // KIP-57: the checksum covers the descriptor only, not the magic (the pre-0.10 Kafka bug).
    expect(packed[descriptorEnd]).toBe((xxh32(packed.subarray(4, descriptorEnd)) >>> 8) & 0xff);
  });

  /** A frame like KafkaLZ4BlockOutputStream's: 64 KiB blocks, one of them stored uncompressed. */
  function javaStyleFrame(content: Buffer, opts: { contentSize?: bigint; contentChecksum?: boolean } = {}): Buffer {
    const checksum = opts.contentChecksum ?? true;
    const flg = 0x60 | (checksum ? 0x04 : 0) | (opts.contentSize === undefined ? 0 : 0x08);
    const descriptor = Buffer.alloc(opts.contentSize === undefined ? 2 : 10);
    descriptor[0] = flg;
    descriptor[1] = 0x40; // 64 KiB blocks
    if (opts.contentSize !== undefined) descriptor.writeBigUInt64LE(opts.contentSize, 2);
    const parts: Buffer[] = [
      Buffer.from([0x04, 0x22, 0x4d, 0x18]),
      descriptor,
      Buffer.from([(xxh32(descriptor) >>> 8) & 0xff]),
    ];
    for (let at = 0, n = 0; at < content.length; at += 65536, n++) {
      const chunk = content.subarray(at, at + 65536);
      const size = Buffer.alloc(4);
      if (n % 2 === 0) {
        size.writeUInt32LE((chunk.length | 0x80000000) >>> 0); // stored uncompressed
        parts.push(size, chunk);
      } else {
        const block = lz4.compressSync(chunk).subarray(4); // strip lz4_flex's size prefix
        size.writeUInt32LE(block.length);
        parts.push(size, block);
      }
    }
    const tail = Buffer.alloc(checksum ? 8 : 4);
    if (checksum) tail.writeUInt32LE(xxh32(content), 4);
    parts.push(tail); // end mark (+ content checksum)
    return Buffer.concat(parts);
  }

  // Independent blocks without checksums (what Java and librdkafka write) are decoded block by
  // block (issue 33: the frame API ran at ~230 MB/s); anything else by the frame decoder.
  describe('block by block', () => {
    let blockDecodes: jest.SpyInstance;
    beforeEach(() => {
      // The module object compression.ts requires (`import * as` gives a copy of its exports).
      blockDecodes = jest.spyOn(require('lz4-napi') as typeof lz4, 'uncompressSync');
    });
    afterEach(() => blockDecodes.mockRestore());

    it('decodes multi-block frames with stored blocks as the frame decoder does', () => {
      const data = sampleText(200_000);
      const frame = javaStyleFrame(data, { contentChecksum: false });
      expect(decompress(CompressionType.Lz4, frame).equals(data)).toBe(true);
      expect(decompress(CompressionType.Lz4, frame).equals(lz4.decompressFrameSync(frame))).toBe(true);
      expect(blockDecodes).toHaveBeenCalledTimes(2 * 2); // the two compressed blocks of four, each decode
    });

    it('decodes what we write, one block or several, stored ones too', () => {
      for (const data of [sampleText(100), sampleText(16_384), sampleText(300_000)]) {
        blockDecodes.mockClear();
        expect(decompress(CompressionType.Lz4, compress(CompressionType.Lz4, data)).equals(data)).toBe(true);
        expect(blockDecodes).toHaveBeenCalled();
      }
      const incompressible = randomBytes(70_000); // lz4_flex stores its blocks as they are
      expect(
        decompress(CompressionType.Lz4, compress(CompressionType.Lz4, incompressible)).equals(incompressible),
      ).toBe(true);
    });

    it('off the loop too (batches of several records), and frames with a content checksum in the threadpool', async () => {
      const data = sampleText(200_000);
      const plain = javaStyleFrame(data, { contentChecksum: false });
      expect((await decompressOffLoop(CompressionType.Lz4, plain, 1 << 20)).equals(data)).toBe(true);
      expect(blockDecodes).toHaveBeenCalledTimes(2);
      blockDecodes.mockClear();
      expect((await decompressOffLoop(CompressionType.Lz4, javaStyleFrame(data), 1 << 20)).equals(data)).toBe(true);
      expect(blockDecodes).not.toHaveBeenCalled();
      await expect(decompressOffLoop(CompressionType.Lz4, plain, 100_000)).rejects.toThrow(
        /exceeds the decompression limit/,
      );
    });

    it('leaves frames with a content checksum to the frame decoder, which checks it', () => {
      expect(decompress(CompressionType.Lz4, javaStyleFrame(sampleText(1000))).equals(sampleText(1000))).toBe(true);
      expect(blockDecodes).not.toHaveBeenCalled();
    });

    it("refuses a block that decodes past the frame's maximum block size, and a corrupt block", () => {
      // 80,000 bytes in one block of a frame declaring 64 KiB blocks.
      const block = lz4.compressSync(Buffer.alloc(80_000, 1)).subarray(4);
      const size = Buffer.alloc(4);
      size.writeUInt32LE(block.length);
      const head = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, (xxh32(Buffer.from([0x60, 0x40])) >>> 8) & 0xff]);
      const frame = Buffer.concat([head, size, block, Buffer.alloc(4)]);
      expectDecodeError(() => decompress(CompressionType.Lz4, frame), /malformed lz4 data/);
      const corrupt = javaStyleFrame(sampleText(150_000), { contentChecksum: false });
      corrupt.fill(0xff, 65_560, 65_600); // inside the second (compressed) block
      expectDecodeError(() => decompress(CompressionType.Lz4, corrupt), /malformed lz4 data/);
    });
  });

  it('reads multi-block frames with stored blocks and a content checksum', () => {
    const data = sampleText(200_000);
    expect(decompress(CompressionType.Lz4, javaStyleFrame(data)).equals(data)).toBe(true);
    expect(decompress(CompressionType.Lz4, javaStyleFrame(data, { contentSize: 200_000n })).equals(data)).toBe(true);
  });

  it('rejects a corrupted frame', () => {
    const frame = javaStyleFrame(sampleText(1000));
    frame[frame.length - 1]! ^= 0xff; // content checksum
    expectDecodeError(() => decompress(CompressionType.Lz4, frame), /lz4/);
    expectDecodeError(() => decompress(CompressionType.Lz4, frame.subarray(0, 20)), /truncated lz4/);
  });

  it('rejects bytes after the frame rather than dropping them (lz4-napi decodes only the first frame)', () => {
    const both = Buffer.concat([lz4.compressFrameSync(sampleText(1000)), lz4.compressFrameSync(Buffer.from('tail'))]);
    expectDecodeError(() => decompress(CompressionType.Lz4, both), /bytes after the lz4 frame/);
  });
});

describe('zstd', () => {
  it('reads frames without a content size (streaming encoders such as zstd-jni)', async () => {
    const data = sampleText(500_000);
    const chunks: Buffer[] = [];
    for await (const c of Readable.from([data]).pipe(new zstd.CompressStream())) chunks.push(c as Buffer);
    const framed = Buffer.concat(chunks);
    expect(zstd.decompress(framed).equals(data)).toBe(true); // sanity
    expect(decompress(CompressionType.Zstd, framed).equals(data)).toBe(true);
    expectDecodeError(
      () => decompress(CompressionType.Zstd, framed, 100_000),
      /exceeds the decompression limit of 100000/,
    );
  });
});

describe('decompression bombs', () => {
  const zeros = Buffer.alloc(16 * MiB);

  it.each(codecs.filter(([, t]) => t !== CompressionType.None))(
    '%s: output over the limit is a DecodeError',
    (_name, type) => {
      const bomb = compress(type, zeros);
      expect(bomb.length).toBeLessThan(MiB);
      expectDecodeError(() => decompress(type, bomb, MiB), /exceeds the decompression limit/);
      expect(decompress(type, bomb, 16 * MiB).length).toBe(16 * MiB); // exactly at the limit is fine
    },
  );

  it('applies a 64 MiB limit by default', () => {
    expect(DEFAULT_MAX_DECOMPRESSED_BYTES).toBe(64 * MiB);
    const big = Buffer.alloc(65 * MiB);
    expectDecodeError(() => decompress(CompressionType.Gzip, zlib.gzipSync(big, { level: 1 })), /exceeds/);
    expectDecodeError(() => decompress(CompressionType.Zstd, zstd.compress(big)), /exceeds/);
  });

  it('checks declared sizes before allocating', () => {
    // Raw snappy whose preamble claims 4 GiB - 1.
    const snappyLie = Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.alloc(10)]);
    expectDecodeError(() => decompress(CompressionType.Snappy, snappyLie), /4294967295 bytes exceeds/);
    // LZ4 frame whose descriptor claims 1 TiB of content.
    const descriptor = Buffer.from([0x68, 0x40, 0, 0, 0, 0, 0, 1, 0, 0]);
    const lz4Lie = Buffer.concat([
      Buffer.from([0x04, 0x22, 0x4d, 0x18]),
      descriptor,
      Buffer.from([(xxh32(descriptor) >>> 8) & 0xff, 0, 0, 0, 0]),
    ]);
    expectDecodeError(() => decompress(CompressionType.Lz4, lz4Lie), /1099511627776 bytes exceeds/);
    // zstd frame whose header claims 1 TiB (8-byte content size, single segment) around one raw
    // 3-byte block. Allocating first would fail with a RangeError, not this message.
    const zstdLie = Buffer.concat([
      Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x19, 0, 0]),
      Buffer.from('abc'),
    ]);
    expectDecodeError(() => decompress(CompressionType.Zstd, zstdLie), /1099511627776 bytes exceeds/);
  });

  it('bounds the sum of xerial snappy blocks', () => {
    const packed = compress(CompressionType.Snappy, Buffer.alloc(200_000));
    expect(decompress(CompressionType.Snappy, packed, 200_000).length).toBe(200_000);
    expectDecodeError(() => decompress(CompressionType.Snappy, packed, 199_999), /exceeds/);
  });
});

// The reference implementations, where installed (Debian packages lz4 and zstd).
describe.each([
  ['lz4', CompressionType.Lz4, [[], ['-BD'], ['-B4', '-BD', '--content-size'], ['-B7', '-BX'], ['--no-frame-crc']]],
  ['zstd', CompressionType.Zstd, [['-1'], ['-19'], ['--no-check', '--no-content-size']]],
] as const)('%s command-line tool', (cli, type, variants) => {
  const run = itWithTools(cli);
  const data = sampleText(300_000);
  let dir = '';
  // lz4 takes the output file as a second argument, zstd with -o.
  const io = (input: string, output: string) =>
    cli === 'lz4' ? [join(dir, input), join(dir, output)] : [join(dir, input), '-o', join(dir, output)];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'minnow-codec-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  run('decodes what we write', () => {
    writeFileSync(join(dir, 'ours'), compress(type, data));
    execFileSync(cli, ['-d', '-q', '-f', ...io('ours', 'ours.out')]);
    expect(readFileSync(join(dir, 'ours.out')).equals(data)).toBe(true);
  });

  run.each(variants.map((v) => [v.join(' ') || 'defaults', v] as const))(
    'writes what we decode (%s)',
    (_label, args) => {
      writeFileSync(join(dir, 'in'), data);
      execFileSync(cli, [...args, '-q', '-f', ...io('in', 'theirs')]);
      expect(decompress(type, readFileSync(join(dir, 'theirs'))).equals(data)).toBe(true);
    },
  );
});
