// How far produce validation may inflate a compressed batch on the event loop (issue 29: an 80 KB
// gzip bomb claiming 64 MiB held the loop 130-260 ms, every other client waiting meanwhile).
//
// The budget a batch states: its record count times max.message.bytes. Most producers refuse a
// record larger than their request limit before compressing it (Java's max.request.size in
// KafkaProducer.ensureValidRecordSize, librdkafka's message.max.bytes), so most batches inflate
// within it, on the loop when it is small (a batch whose data does not state its size, as zstd-jni's
// frames, on the loop up to INFLATE_ON_LOOP_MAX_BYTES). A batch that states more, or inflates past what it
// states (franz-go bounds only its batch: three 1 MiB records of zeros gzip to 3 KB), is inflated
// off the loop, one at a time, up to the ceiling (MAX_DECOMPRESSED_BYTES): Kafka streams records
// out of the codec and bounds only the compressed batch, so such batches are accepted as there.
// A bomb of zeros (record length 0) is refused by its first chunk's framing wherever it inflates.
import * as zlib from 'node:zlib';
import { decompressOffLoop } from '../protocol/decompress-off-loop';
import { DecodeError } from '../protocol/errors';
import { RecordFraming } from '../protocol/record-framing';

/**
 * Bounds above this are inflated off the loop: gzip inflates 1 MiB in about 1 ms here, and a batch
 * of one record under Kafka's default max.message.bytes (1 MiB + 12) stays on the loop.
 */
export const INFLATE_ON_LOOP_MAX_BYTES = 2 * 1024 * 1024;

/** The output limit of one batch's decompression: see above; never above `ceiling`. */
export function inflationLimit(recordsCount: number, maxMessageBytes: number, ceiling: number): number {
  return Math.min(ceiling, Math.max(1, recordsCount) * Math.max(1, maxMessageBytes));
}

/** A compressed batch validation left for the caller to inflate off the loop, then validate again. */
export interface DeferredInflation {
  codec: number;
  compressed: Buffer;
  limit: number;
  /** What the header states: inflating stops at the first record that contradicts it. */
  recordsCount: number;
  maxRecordBytes: number;
}

/** What inflating gave: the records, or the DecodeError validation turns into its answer. */
export type Inflated = Buffer | DecodeError;

/**
 * A gzip batch inflated on the loop up to at most this (what its trailer states, or its header's
 * budget) is inflated whole without the probe: a bomb then costs the loop no more than a legitimate
 * batch of that size, and the probe's own gunzip (a zlib stream set up per call, ~16 µs) was 13 %
 * of validating the Java producer's 31-record gzip batches (issue 33).
 */
export const GZIP_PROBE_ABOVE_BYTES = 256 * 1024;

/** Compressed bytes the gzip probe inflates: deflate expands at most 1032:1, so at most ~256 KiB. */
const GZIP_PROBE_BYTES = 256;

/**
 * Before a gzip batch is inflated on the loop (up to 2 MiB): its first compressed bytes inflated
 * alone (Z_SYNC_FLUSH: a cut stream is no error) and their records' frame checked, so a bomb of
 * zeros is refused having inflated a few KiB instead of the whole bound. Throws DecodeError (or
 * RecordTooLargeError) as decompress does; returns when the start looks like records.
 */
export function probeGzip(compressed: Buffer, recordsCount: number, maxRecordBytes: number): void {
  if (compressed.length <= GZIP_PROBE_BYTES) return; // small enough to inflate whole
  let start: Buffer;
  try {
    start = zlib.gunzipSync(compressed.subarray(0, GZIP_PROBE_BYTES), {
      finishFlush: zlib.constants.Z_SYNC_FLUSH,
    });
  } catch {
    return; // the whole inflate reports it
  }
  new RecordFraming(recordsCount, maxRecordBytes).feed(start);
}

/** Inflates off the event loop; a DecodeError (malformed, or past the limit) is returned, not thrown. */
export async function inflateOffLoop(deferred: DeferredInflation): Promise<Inflated> {
  try {
    const framing = new RecordFraming(deferred.recordsCount, deferred.maxRecordBytes);
    return await decompressOffLoop(deferred.codec, deferred.compressed, deferred.limit, framing);
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
}
