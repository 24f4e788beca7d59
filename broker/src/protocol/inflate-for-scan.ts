/**
 * Decompression for a look at the records that ends before the caller returns: produce validation
 * walks every record of a batch, then drops them (the batch is stored as produced). zstd decodes
 * into one buffer reused from call to call instead of a new one per batch (or, for the frames
 * Java's zstd-jni writes, which do not state their size, a stream of 128 KiB chunks joined at the
 * end): issue 33 measured ~55 µs for a 17 KB batch that way. Xerial snappy joins its blocks in the same
 * buffer (xerialForScan), and lz4 its blocks (lz4ForScan). gzip is `decompress`.
 * What it returns is valid until the next call.
 */
import {
  CompressionType,
  checkSize,
  DecompressionLimitError,
  decompress,
  isXerialHeader,
  lz4DecodeBlock,
  lz4Frame,
  native,
  snappy,
  SNAPPY_DECODE,
  xerialBlocks,
  xerialStatedSize,
  zstdContentSize,
  zstdDctx,
} from './compression';
import { DecodeError } from './errors';

/** The reused buffer's largest size: as much as a batch may inflate on the event loop (2 MiB). */
export const SCAN_BUFFER_MAX_BYTES = 2 * 1024 * 1024;
const SCAN_BUFFER_MIN_BYTES = 64 * 1024;

let scanBuffer: Buffer | undefined;

function scanBufferOf(bytes: number): Buffer {
  if (scanBuffer === undefined || scanBuffer.length < bytes) {
    const size = Math.min(SCAN_BUFFER_MAX_BYTES, 2 ** Math.ceil(Math.log2(Math.max(SCAN_BUFFER_MIN_BYTES, bytes))));
    scanBuffer = Buffer.allocUnsafe(size);
  }
  return scanBuffer;
}

/** As `decompress` (same limit, same errors); the output may be a shared buffer the next call overwrites. */
export function inflateForScan(type: number, data: Buffer, maxBytes: number): Buffer {
  if (type === CompressionType.Snappy) return xerialForScan(data, maxBytes);
  if (type === CompressionType.Lz4) return lz4ForScan(data, maxBytes);
  if (type !== CompressionType.Zstd) return decompress(type, data, maxBytes);
  let known: number | null;
  try {
    known = zstdContentSize(data);
  } catch (err) {
    throw new DecodeError(`malformed zstd data: ${(err as Error).message}`, { cause: err });
  }
  if (known !== null) checkSize(known, maxBytes, 'zstd');
  // Without a stated size the frames may hold anything up to the limit: room for all of it.
  const room = known ?? maxBytes;
  if (room > SCAN_BUFFER_MAX_BYTES) return decompress(type, data, maxBytes);
  const out = scanBufferOf(room).subarray(0, room);
  let n: number;
  try {
    n = zstdDctx(maxBytes).decompress(out, data);
  } catch (err) {
    // zstd's dstSize_tooSmall: the frames hold more than the limit.
    if (known === null && /too small/i.test((err as Error).message))
      throw new DecompressionLimitError(`zstd data exceeds the decompression limit of ${maxBytes} bytes`, {
        cause: err,
      });
    throw new DecodeError(`malformed zstd data: ${(err as Error).message}`, { cause: err });
  }
  if (known !== null && n !== known) throw new DecodeError(`zstd frame declared ${known} bytes but held ${n}`);
  return out.subarray(0, n);
}

/**
 * Xerial-framed snappy (Java's and librdkafka's 32 KiB blocks) joined in the reused buffer instead
 * of a new one per batch (issue 33): with `minnow perf produce --compression snappy` a 64 KiB batch
 * made three new ArrayBuffers (two blocks and their join), and at that churn V8 often fell into a
 * mark-compact every ~60 ms (each run settles in one regime: 36-71 mark-compacts per 4 s in most
 * runs, 1 in the others). Without the join, 1 of 8 runs did.
 */
function xerialForScan(data: Buffer, maxBytes: number): Buffer {
  if (!isXerialHeader(data, 0)) return decompress(CompressionType.Snappy, data, maxBytes);
  const stated = checkSize(xerialStatedSize(data), maxBytes, 'snappy');
  if (stated > SCAN_BUFFER_MAX_BYTES) return decompress(CompressionType.Snappy, data, maxBytes);
  const out = scanBufferOf(stated);
  let at = 0;
  for (const block of xerialBlocks(data)) {
    const part = native('snappy', () => snappy().uncompressSync(block, SNAPPY_DECODE) as Buffer);
    // A block holds what its preamble states (snappy's decoder checks it); the sum was checked above.
    at += part.copy(out, at);
  }
  return out.subarray(0, at);
}

/** An lz4 frame's blocks joined in the reused buffer, as xerialForScan's (one new buffer per block is left: lz4-napi's output). */
function lz4ForScan(data: Buffer, maxBytes: number): Buffer {
  const frame = lz4Frame(data, maxBytes);
  checkSize(frame.bound, maxBytes, 'lz4');
  if (!frame.plain || frame.blocks.length < 2 || frame.bound > SCAN_BUFFER_MAX_BYTES)
    return decompress(CompressionType.Lz4, data, maxBytes);
  const out = scanBufferOf(frame.bound);
  let at = 0;
  for (const b of frame.blocks) at += native('lz4', () => lz4DecodeBlock(data, frame, b)).copy(out, at);
  return out.subarray(0, at);
}
