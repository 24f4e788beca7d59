// Counting consumed records without materializing them: the consumer perf test needs each
// record's offset and key+value sizes, not objects, and allocating 300k objects a second would
// make the tool, not the broker, the bottleneck. Walks the v2 record layout (protocol guide
// "Record": length, attributes, timestampDelta, offsetDelta, key, value, headers as zigzag
// varints) and jumps over each record by its length.
import { decompress } from '../protocol/compression';
import { DecodeError } from '../protocol/errors';
import {
  ATTRIBUTES,
  BASE_OFFSET,
  BATCH_HEADER_SIZE,
  checkBatch,
  compression,
  RECORDS_COUNT,
} from '../protocol/record-batch';

export interface ScanResult {
  records: number;
  /** key + value bytes (null counts 0), as kafka-consumer-perf-test counts them. */
  bytes: number;
  /** Offset of the last record counted, or -1n if none. */
  lastOffset: bigint;
}

/** Where the last varint read ended: the readers below return values, not [value, position] pairs (issue 33: a pair per varint was a third of the tool's scan). */
let pos = 0;

/** Reads a zigzag varint at `at`, leaving `pos` after it. */
function varint(buf: Buffer, at: number): number {
  let u = 0;
  // Shifts while the bits fit an int32, then a multiplication for the fifth byte (no 2 ** shift per byte).
  for (let shift = 0; shift < 28; shift += 7) {
    if (at >= buf.length) throw new DecodeError('truncated varint in record');
    const b = buf[at++]!;
    u |= (b & 0x7f) << shift;
    if (b < 0x80) {
      pos = at;
      return u & 1 ? -(u >>> 1) - 1 : u >>> 1;
    }
  }
  if (at >= buf.length) throw new DecodeError('truncated varint in record');
  const b = buf[at++]!;
  if (b >= 0x80) throw new DecodeError('varint longer than 5 bytes in record');
  const v = (u >>> 0) + (b & 0x7f) * 2 ** 28;
  pos = at;
  return v % 2 === 1 ? -(v + 1) / 2 : v / 2;
}

/** Skips a varlong (timestampDelta) without decoding it. */
function skipVarlong(buf: Buffer, at: number): number {
  for (let i = 0; i < 10; i++) {
    if (at >= buf.length) throw new DecodeError('truncated varlong in record');
    if (buf[at++]! < 0x80) return at;
  }
  throw new DecodeError('varlong longer than 10 bytes in record');
}

/**
 * Counts the records of one batch with offset >= `from` (and < `end` when given), at most
 * `limit` of them, decompressing if needed.
 */
export function scanBatch(batch: Buffer, from: bigint, end: bigint | undefined, limit = Infinity): ScanResult {
  const size = checkBatch(batch);
  const count = batch.readInt32BE(RECORDS_COUNT);
  const base = batch.readBigInt64BE(BASE_OFFSET);
  const data = decompress(compression(batch.readInt16BE(ATTRIBUTES)), batch.subarray(BATCH_HEADER_SIZE, size));
  // Offsets as numbers relative to base: cheaper than bigint per record.
  const fromDelta = from <= base ? -1 : Number(from - base);
  const endDelta = end === undefined ? Infinity : Number(end - base);
  let records = 0;
  let bytes = 0;
  let lastDelta = -1;
  let at = 0;
  for (let i = 0; i < count && records < limit; i++) {
    const len = varint(data, at);
    at = pos;
    if (len < 0 || at + len > data.length)
      throw new DecodeError(`record length ${len} exceeds the ${data.length - at} bytes left`);
    const next = at + len;
    const offsetDelta = varint(data, skipVarlong(data, at + 1)); // after attributes, timestampDelta
    if (offsetDelta >= endDelta) break;
    if (offsetDelta >= fromDelta) {
      const keyLen = varint(data, pos);
      const valueLen = varint(data, pos + Math.max(0, keyLen));
      records++;
      bytes += Math.max(0, keyLen) + Math.max(0, valueLen);
      lastDelta = offsetDelta;
    }
    at = next;
  }
  return { records, bytes, lastOffset: lastDelta < 0 ? -1n : base + BigInt(lastDelta) };
}
