/**
 * Decompression for a look at the records that ends before the caller returns: produce validation
 * walks every record of a batch, then drops them (the batch is stored as produced). zstd decodes
 * into one buffer reused from call to call instead of a new one per batch (or, for the frames
 * Java's zstd-jni writes, which do not state their size, a stream of 128 KiB chunks joined at the
 * end): issue 33 measured ~55 µs for a 17 KB batch that way. The other codecs are `decompress`.
 * What it returns is valid until the next call.
 */
import {
  CompressionType,
  checkSize,
  DecompressionLimitError,
  decompress,
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
