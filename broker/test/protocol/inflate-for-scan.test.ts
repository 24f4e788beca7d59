// inflateForScan: what produce validation inflates on the loop, zstd, xerial snappy's and lz4's blocks
// into one reused buffer; the same output, limit and errors as decompress.
import { Readable } from 'node:stream';
import * as lz4 from 'lz4-napi';
import * as zstd from 'zstd-napi';
import {
  compress as compressWhole,
  CompressionType,
  DecompressionLimitError,
  decompress,
  lz4Frame,
  xerialBlocks,
} from '../../src/protocol/compression';
import { DecodeError } from '../../src/protocol/errors';
import { inflateForScan, SCAN_BUFFER_MAX_BYTES } from '../../src/protocol/inflate-for-scan';

/** An lz4 frame of independent 64 KiB blocks, no checksums (lz4-napi's own frames are one block). */
function lz4In64KiBBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x00])]; // magic, FLG, BD, header checksum (not read)
  for (let at = 0; at < data.length; at += 65536) {
    const block = lz4.compressSync(data.subarray(at, at + 65536)).subarray(4); // without its size prefix
    const size = Buffer.alloc(4);
    size.writeUInt32LE(block.length);
    parts.push(size, block);
  }
  return Buffer.concat([...parts, Buffer.alloc(4)]);
}

const text = (n: number, seed: number) =>
  Buffer.from(Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * seed) % 23) + (i % 3))).join(''));

async function streamed(data: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of Readable.from([data]).pipe(new zstd.CompressStream())) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('inflateForScan', () => {
  it('gives what decompress gives, for zstd frames with and without a content size and for the other codecs', async () => {
    const a = text(20_000, 7);
    const b = text(50_000, 11);
    expect(inflateForScan(CompressionType.Zstd, compressWhole(CompressionType.Zstd, a), 100_000).equals(a)).toBe(true);
    expect(inflateForScan(CompressionType.Zstd, await streamed(b), 100_000).equals(b)).toBe(true);
    for (const t of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4])
      expect(inflateForScan(t, compressWhole(t, a), 100_000).equals(a)).toBe(true);
  });

  it('reuses one buffer: the next call overwrites what the last returned', async () => {
    const first = inflateForScan(CompressionType.Zstd, compressWhole(CompressionType.Zstd, text(1000, 3)), 10_000);
    const second = inflateForScan(CompressionType.Zstd, await streamed(text(1000, 5)), 10_000);
    expect(second.buffer).toBe(first.buffer);
    expect(first.equals(text(1000, 5))).toBe(true);
  });

  it('holds the limit with or without a content size, as decompress does', async () => {
    const big = text(300_000, 13);
    for (const framed of [compressWhole(CompressionType.Zstd, big), await streamed(big)]) {
      expect(() => inflateForScan(CompressionType.Zstd, framed, 299_999)).toThrow(DecompressionLimitError);
      expect(() => decompress(CompressionType.Zstd, framed, 299_999)).toThrow(DecompressionLimitError);
      expect(inflateForScan(CompressionType.Zstd, framed, 300_000).length).toBe(300_000);
    }
  });

  it('over the reused buffer, inflates as decompress does', async () => {
    const huge = Buffer.alloc(SCAN_BUFFER_MAX_BYTES + 10, 120);
    const out = inflateForScan(CompressionType.Zstd, await streamed(huge), 64 * 1024 * 1024);
    expect(out.equals(huge)).toBe(true);
  });

  it('refuses malformed data with a DecodeError that says so', async () => {
    const framed = await streamed(text(5000, 17));
    for (const bad of [Buffer.from('not zstd'), framed.subarray(0, framed.length - 3)]) {
      expect(() => inflateForScan(CompressionType.Zstd, bad, 100_000)).toThrow(DecodeError);
      expect(() => inflateForScan(CompressionType.Zstd, bad, 100_000)).toThrow(/malformed zstd data/);
    }
  });

  describe('blocks of xerial snappy and lz4, joined in the reused buffer', () => {
    // 7 xerial blocks of 32 KiB; lz4 as Java's KafkaLZ4BlockOutputStream writes it: 64 KiB blocks, 4 of them.
    const sizes = { [CompressionType.Snappy]: 200_000, [CompressionType.Lz4]: 200_000 };
    const codecs = [CompressionType.Snappy, CompressionType.Lz4] as const;
    const compress = (t: CompressionType, data: Buffer) =>
      t === CompressionType.Lz4 ? lz4In64KiBBlocks(data) : compressWhole(t, data);

    it('gives what decompress gives, in the buffer zstd reuses', () => {
      for (const t of codecs) {
        const data = text(sizes[t], 19);
        const framed = compress(t, data);
        const out = inflateForScan(t, framed, 1_000_000);
        expect(out.equals(decompress(t, framed, 1_000_000))).toBe(true);
        expect(out.equals(data)).toBe(true);
        const zstdOut = inflateForScan(CompressionType.Zstd, compress(CompressionType.Zstd, text(10, 1)), 100);
        expect(zstdOut.buffer).toBe(out.buffer);
      }
    });

    it('holds the limit as decompress does', () => {
      for (const t of codecs) {
        const framed = compress(t, text(sizes[t], 19));
        expect(() => inflateForScan(t, framed, sizes[t] - 50_000)).toThrow(DecompressionLimitError);
        expect(() => decompress(t, framed, sizes[t] - 50_000)).toThrow(DecompressionLimitError);
      }
      // snappy states its length exactly; lz4's bound is whole blocks.
      const snappy200k = compress(CompressionType.Snappy, text(200_000, 19));
      expect(inflateForScan(CompressionType.Snappy, snappy200k, 200_000).length).toBe(200_000);
    });

    it('refuses a corrupt later block with a DecodeError naming the codec', () => {
      const lastBlockAt = { [CompressionType.Snappy]: 0, [CompressionType.Lz4]: 0 };
      for (const t of codecs) {
        const framed = Buffer.from(compress(t, text(sizes[t], 19)));
        // The last block's first bytes (after its length prefix): the earlier blocks decode first.
        if (t === CompressionType.Snappy)
          for (const b of xerialBlocks(framed)) lastBlockAt[t] = b.byteOffset - framed.byteOffset;
        else lastBlockAt[t] = lz4Frame(framed, Infinity).blocks.at(-1)!.at;
        framed.fill(0xff, lastBlockAt[t] + 1, lastBlockAt[t] + 40);
        const name = t === CompressionType.Snappy ? 'snappy' : 'lz4';
        expect(() => inflateForScan(t, framed, 1_000_000)).toThrow(DecodeError);
        expect(() => inflateForScan(t, framed, 1_000_000)).toThrow(new RegExp(`malformed ${name} data`));
      }
    });
  });
});
