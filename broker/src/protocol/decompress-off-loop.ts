/**
 * Decompression that leaves the event loop free: `decompress` (compression.ts) with the same output
 * limit and errors, for batches whose limit is too large to inflate in one turn of the loop (a gzip
 * bomb of 80 KB inflating to 64 MiB took 130-260 ms of loop time, issue 29). gzip, lz4 and large
 * snappy blocks are decoded in libuv's threadpool (their async APIs); zstd and xerial snappy are
 * decoded in chunks, yielding to the loop after every YIELD_EVERY_BYTES of output. Each codec still
 * stops at the limit, and the chunked ones (gzip, zstd, xerial snappy) also at the first chunk whose
 * records contradict the batch header (record-framing.ts): a bomb of zeros stops after one chunk. One call runs at a time, so at most one such buffer is alive on the 1 GiB
 * instance, as when validation was synchronous.
 */
import * as zlib from 'node:zlib';
import {
  CompressionType,
  DecompressionLimitError,
  xerialBlocks,
  checkSize,
  decompress,
  isXerialHeader,
  lz4,
  lz4DecodeBlock,
  lz4Frame,
  native,
  rawSnappyLength,
  snappy,
  SNAPPY_DECODE,
  zstdBinding,
  zstdWindowLogMax,
} from './compression';
import { DecodeError } from './errors';
import type { RecordFraming } from './record-framing';

/** Output decoded on the loop between two yields (about 1 ms of inflate on the t3.micro). */
export const YIELD_EVERY_BYTES = 1024 * 1024;

/** gzip output chunk per threadpool round trip (zlib's default is 16 KiB: 4,096 trips for 64 MiB). */
const GZIP_CHUNK_BYTES = 256 * 1024;

let queue: Promise<unknown> = Promise.resolve();

/** Decompresses `data` off the event loop; rejects with DecodeError as `decompress` throws it. */
export function decompressOffLoop(
  type: number,
  data: Buffer,
  maxBytes: number,
  framing?: RecordFraming,
): Promise<Buffer> {
  const run = queue.then(() => decode(type, data, maxBytes, framing));
  queue = run.catch(() => undefined);
  return run;
}

function decode(type: number, data: Buffer, maxBytes: number, framing?: RecordFraming): Promise<Buffer> {
  switch (type) {
    case CompressionType.Gzip:
      return gunzip(data, maxBytes, framing);
    case CompressionType.Snappy:
      return snappyDecompress(data, maxBytes, framing);
    case CompressionType.Lz4:
      return lz4Decompress(data, maxBytes, framing);
    case CompressionType.Zstd:
      return zstdDecompress(data, maxBytes, framing);
    default:
      return Promise.resolve(decompress(type, data, maxBytes)); // none, or an unknown codec's error
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function threadpool(codec: string, run: () => Promise<Buffer | string>): Promise<Buffer> {
  try {
    return (await run()) as Buffer;
  } catch (err) {
    throw new DecodeError(`malformed ${codec} data: ${(err as Error).message}`, { cause: err });
  }
}

/** zlib's stream: each chunk is inflated in the threadpool; the stream ends at the limit or a fault. */
function gunzip(data: Buffer, maxBytes: number, framing?: RecordFraming): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const inflater = zlib.createGunzip({ chunkSize: GZIP_CHUNK_BYTES });
    const stop = (err: Error) => {
      inflater.destroy();
      reject(err);
    };
    inflater.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        return stop(new DecompressionLimitError(`gzip data exceeds the decompression limit of ${maxBytes} bytes`));
      }
      chunks.push(chunk);
      try {
        framing?.feed(chunk);
      } catch (err) {
        stop(err as Error);
      }
    });
    inflater.on('error', (err) => reject(new DecodeError(`malformed gzip data: ${err.message}`, { cause: err })));
    inflater.on('end', () => resolve(Buffer.concat(chunks, total)));
    inflater.end(data);
  });
}

/**
 * The decoded blocks of one batch (xerial snappy, lz4), each fed to the framing as it comes,
 * yielding the loop after every YIELD_EVERY_BYTES of output.
 */
class DecodedBlocks {
  private readonly blocks: Buffer[] = [];
  total = 0;
  private sinceYield = 0;

  constructor(private readonly framing: RecordFraming | undefined) {}

  async add(block: Buffer): Promise<void> {
    this.total += block.length;
    this.blocks.push(block);
    this.framing?.feed(block);
    this.sinceYield += block.length;
    if (this.sinceYield >= YIELD_EVERY_BYTES) {
      this.sinceYield = 0;
      await nextTurn();
    }
  }

  joined(): Buffer {
    return this.blocks.length === 1 ? this.blocks[0]! : Buffer.concat(this.blocks, this.total);
  }
}

async function rawSnappy(block: Buffer, maxBytes: number): Promise<Buffer> {
  const size = checkSize(rawSnappyLength(block), maxBytes, 'snappy');
  if (size <= YIELD_EVERY_BYTES) return native('snappy', () => snappy().uncompressSync(block, SNAPPY_DECODE) as Buffer);
  return threadpool('snappy', () => snappy().uncompress(block, SNAPPY_DECODE));
}

/** As compression.ts's snappyDecompress (xerial framing or raw), yielding between blocks. */
async function snappyDecompress(data: Buffer, maxBytes: number, framing?: RecordFraming): Promise<Buffer> {
  if (!isXerialHeader(data, 0)) return rawSnappy(data, maxBytes);
  const out = new DecodedBlocks(framing);
  for (const compressed of xerialBlocks(data)) {
    const block = await rawSnappy(compressed, maxBytes - out.total);
    await out.add(block);
  }
  return out.joined();
}

/**
 * As compression.ts's lz4Decompress: a frame of independent blocks without checksums block by block
 * on the loop (the block API decodes ~1 GB/s), yielding between blocks; others in the threadpool.
 */
async function lz4Decompress(data: Buffer, maxBytes: number, framing?: RecordFraming): Promise<Buffer> {
  const frame = lz4Frame(data, maxBytes);
  checkSize(frame.bound, maxBytes, 'lz4');
  if (!frame.plain) return threadpool('lz4', () => lz4().decompressFrame(data));
  const out = new DecodedBlocks(framing);
  for (const b of frame.blocks) {
    const block = native('lz4', () => lz4DecodeBlock(data, frame, b));
    await out.add(block);
  }
  return out.joined();
}

/**
 * This path's zstd context: its own (the shared one may serve `decompress` between two of its
 * chunks), made once and reset per batch, since calls run one at a time. A new context per batch
 * (its allocation and window) doubled the CPU of a 256 KiB batch (issue 33).
 */
let zstdContext: InstanceType<ReturnType<typeof zstdBinding>['DCtx']> | undefined;

/** zstd's streaming decoder, yielding to the loop between chunks. */
async function zstdDecompress(data: Buffer, maxBytes: number, framing?: RecordFraming): Promise<Buffer> {
  const binding = zstdBinding();
  const dctx = native('zstd', () => {
    const ctx = (zstdContext ??= new binding.DCtx());
    ctx.reset(binding.ResetDirective.sessionAndParameters);
    ctx.setParameter(binding.DParameter.windowLogMax, zstdWindowLogMax(maxBytes));
    return ctx;
  });
  const chunks: Buffer[] = [];
  let total = 0;
  let sinceYield = 0;
  let src = data;
  for (;;) {
    const dst = Buffer.allocUnsafe(binding.dStreamOutSize());
    const [pending, produced, consumed] = native('zstd', () => dctx.decompressStream(dst, src));
    total += produced;
    checkSize(total, maxBytes, 'zstd');
    if (produced > 0) {
      chunks.push(dst.subarray(0, produced));
      framing?.feed(dst.subarray(0, produced));
    }
    src = src.subarray(consumed);
    if (src.length === 0 && produced < dst.length) {
      if (pending !== 0) throw new DecodeError('truncated zstd frame');
      return Buffer.concat(chunks, total);
    }
    if (produced === 0 && consumed === 0) throw new DecodeError('zstd decoder made no progress');
    sinceYield += produced;
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await nextTurn();
    }
  }
}
