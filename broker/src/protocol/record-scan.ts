/**
 * Walks the records of a v2 batch (already decompressed) without building a Record per entry:
 * the produce path checks every record's structure, as Kafka's DefaultRecord.readFrom does when
 * its LogValidator iterates a batch, and needs only the range of timestamp deltas. Consumers and
 * tools that want the fields use decodeRecords (record-batch.ts), which this agrees with: both
 * refuse the same bytes.
 *
 * Beyond Kafka it also insists on offsetDelta == the record's index, which every client writes;
 * Kafka stores an uncompressed batch with other deltas as sent (see produce-validation.ts).
 */
import { DecodeError } from './errors';
import { MIN_RECORD_BODY_SIZE } from './record';

/** A record that does not decode; `recordIndex` is its position in the batch (KIP-467's batchIndex). */
export class RecordScanError extends DecodeError {
  constructor(
    message: string,
    readonly recordIndex: number,
  ) {
    super(message);
  }
}

export interface RecordsScan {
  /** Smallest and largest timestampDelta of the records (the batch's timestamps are baseTimestamp + these). */
  minTimestampDelta: number;
  maxTimestampDelta: number;
  /** Records with a null key (a compacted topic refuses them: LogValidator.validateKey). */
  nullKeys: number;
}

/** A field that runs past its record, or a malformed varint; the caller adds the record index. */
class FieldError extends Error {}

// The position after the varint last read: a module variable, so reading a varint allocates nothing.
let next = 0;

/** Zigzag varint of at most 5 bytes and 32 bits, ending before `end`. */
function varint(buf: Buffer, at: number, end: number): number {
  let u = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= end) throw new FieldError('a varint runs past the end of the record');
    const b = buf[at++]!;
    if (shift === 28) {
      if (b > 0x0f) throw new FieldError('a varint is longer than 32 bits');
      u |= b << 28;
    } else {
      u |= (b & 0x7f) << shift;
    }
    if (b < 0x80) {
      next = at;
      return (u >>> 1) ^ -(u & 1);
    }
  }
  throw new FieldError('a varint is longer than 5 bytes'); // unreachable: byte 5 is checked above
}

/** Zigzag varlong that must fit a JS number exactly (a timestamp delta). */
function varlong(buf: Buffer, at: number, end: number): number {
  // Up to 4 bytes (±2^27 ms, 37 hours) the 32-bit path decodes the same value; longer deltas are rare.
  let u = 0;
  const start = at;
  for (let shift = 0; shift < 28 && at < end; shift += 7) {
    const b = buf[at++]!;
    u |= (b & 0x7f) << shift;
    if (b < 0x80) {
      next = at;
      return (u >>> 1) ^ -(u & 1);
    }
  }
  let big = 0n;
  at = start;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (at >= end) throw new FieldError('a varlong runs past the end of the record');
    const b = buf[at++]!;
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      big = BigInt.asUintN(64, big);
      const v = (big >> 1n) ^ -(big & 1n);
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new FieldError(`timestampDelta ${v} is beyond ±2^53 ms`);
      }
      next = at;
      return Number(v);
    }
  }
  throw new FieldError('a varlong is longer than 10 bytes');
}

// The length skipBytes last read (-1: null), beside `next` for the same reason.
let lastLength = 0;

/** Skips a length-prefixed byte field (null = -1), returning the position after it. */
function skipBytes(buf: Buffer, at: number, end: number, what: string, nullable: boolean): number {
  const len = varint(buf, at, end);
  lastLength = len;
  at = next;
  if (len < (nullable ? -1 : 0)) throw new FieldError(`${what} length ${len} is negative`);
  if (len > end - at) throw new FieldError(`${what} length ${len} exceeds the ${end - at} bytes left of the record`);
  return len > 0 ? at + len : at;
}

/**
 * Checks that `buf[start, end)` holds exactly `count` well-formed records whose offsetDeltas are
 * 0..count-1, and returns their timestamp-delta range. Throws RecordScanError for the first record
 * that does not decode (Kafka answers INVALID_RECORD for it: the batch's later records are unreadable).
 */
export function scanRecords(buf: Buffer, start: number, end: number, count: number): RecordsScan {
  let at = start;
  let minDelta = Number.POSITIVE_INFINITY;
  let maxDelta = Number.NEGATIVE_INFINITY;
  let nullKeys = 0;
  for (let i = 0; i < count; i++) {
    if (at >= end) {
      throw new RecordScanError(
        `Incorrect declared batch size, premature EOF reached: the batch declares ${count} records but holds ${i}`,
        i,
      );
    }
    try {
      const bodySize = varint(buf, at, end);
      at = next;
      if (bodySize < MIN_RECORD_BODY_SIZE || bodySize > end - at) {
        throw new FieldError(
          bodySize < MIN_RECORD_BODY_SIZE
            ? `Invalid record size: ${bodySize} bytes, a record takes at least ${MIN_RECORD_BODY_SIZE}`
            : `Invalid record size: expected ${bodySize} bytes in record payload, but instead the buffer has only ${end - at} remaining bytes`,
        );
      }
      const recordEnd = at + bodySize;
      at++; // attributes: unused in v2 records
      const timestampDelta = varlong(buf, at, recordEnd);
      if (timestampDelta < minDelta) minDelta = timestampDelta;
      if (timestampDelta > maxDelta) maxDelta = timestampDelta;
      const offsetDelta = varint(buf, next, recordEnd);
      if (offsetDelta !== i)
        throw new FieldError(
          `offsetDelta is ${offsetDelta}, expected ${i} (records must be numbered 0..${count - 1} in order)`,
        );
      at = skipBytes(buf, next, recordEnd, 'key', true);
      if (lastLength < 0) nullKeys++;
      at = skipBytes(buf, at, recordEnd, 'value', true);
      const headerCount = varint(buf, at, recordEnd);
      at = next;
      // Each header takes at least 2 bytes (two length varints).
      if (headerCount < 0 || headerCount * 2 > recordEnd - at) {
        throw new FieldError(
          `Found invalid number of record headers ${headerCount} for the ${recordEnd - at} bytes left of the record`,
        );
      }
      for (let h = 0; h < headerCount; h++) {
        at = skipBytes(buf, at, recordEnd, 'header key', false);
        at = skipBytes(buf, at, recordEnd, 'header value', true);
      }
      if (at !== recordEnd) {
        throw new FieldError(
          `Invalid record size: expected to read ${bodySize} bytes in record payload, but its fields leave ${recordEnd - at}`,
        );
      }
    } catch (err) {
      if (err instanceof FieldError) throw new RecordScanError(`record ${i}: ${err.message}`, i);
      throw err;
    }
  }
  if (at !== end) {
    throw new RecordScanError(
      `Incorrect declared batch size, records still remaining in file: ${end - at} bytes after the ${count} declared records`,
      count,
    );
  }
  return { minTimestampDelta: minDelta, maxTimestampDelta: maxDelta, nullKeys };
}
