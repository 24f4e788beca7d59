// inflateForScan: what produce validation inflates on the loop, zstd into one reused buffer; the
// same output, limit and errors as decompress.
import { Readable } from 'node:stream';
import * as zstd from 'zstd-napi';
import { compress, CompressionType, DecompressionLimitError, decompress } from '../../src/protocol/compression';
import { DecodeError } from '../../src/protocol/errors';
import { inflateForScan, SCAN_BUFFER_MAX_BYTES } from '../../src/protocol/inflate-for-scan';

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
    expect(inflateForScan(CompressionType.Zstd, compress(CompressionType.Zstd, a), 100_000).equals(a)).toBe(true);
    expect(inflateForScan(CompressionType.Zstd, await streamed(b), 100_000).equals(b)).toBe(true);
    for (const t of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4])
      expect(inflateForScan(t, compress(t, a), 100_000).equals(a)).toBe(true);
  });

  it('reuses one buffer: the next call overwrites what the last returned', async () => {
    const first = inflateForScan(CompressionType.Zstd, compress(CompressionType.Zstd, text(1000, 3)), 10_000);
    const second = inflateForScan(CompressionType.Zstd, await streamed(text(1000, 5)), 10_000);
    expect(second.buffer).toBe(first.buffer);
    expect(first.equals(text(1000, 5))).toBe(true);
  });

  it('holds the limit with or without a content size, as decompress does', async () => {
    const big = text(300_000, 13);
    for (const framed of [compress(CompressionType.Zstd, big), await streamed(big)]) {
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
});
