/**
 * One record inside a v2 batch (protocol guide "Record"; the varints are zigzag, KIP-98). The
 * batch-level code (header, compression, CRC) is in record-batch.ts.
 */
import { DecodeError, EncodeError } from './errors';
import type { Reader } from './reader';

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface Record {
  /** Unused by Kafka so far; always 0 when we write. */
  attributes: number;
  /** Milliseconds from the batch's baseTimestamp. */
  timestampDelta: number;
  /** Offset from the batch's baseOffset. */
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/** attributes, timestampDelta, offsetDelta, key length, value length, header count: 1 byte each. */
export const MIN_RECORD_BODY_SIZE = 6;

/**
 * Zigzag varint with an inline fast path for up to 4 bytes (every field of a typical record),
 * cheaper than Reader.varint's per-byte bounds check. Longer, truncated or malformed input
 * falls back to the Reader, which decodes or reports it. A 64-bit zigzag varlong of up to 4 bytes
 * decodes to the same value, so timestampDelta uses it too.
 */
function fastVarint(r: Reader, long: boolean): number {
  const { buf, end } = r;
  let at = r.offset;
  let u = 0;
  for (let shift = 0; shift < 28 && at < end; shift += 7) {
    const b = buf[at++]!;
    u |= (b & 0x7f) << shift;
    if (b < 0x80) {
      r.offset = at;
      return (u >>> 1) ^ -(u & 1);
    }
  }
  return long ? r.varlongNumber() : r.varint();
}
const varint = (r: Reader): number => fastVarint(r, false);
const varlongNumber = (r: Reader): number => fastVarint(r, true);

/** Key/value bytes: a zero-copy view into the (decompressed) records. */
function varintBytes(r: Reader, what: string): Buffer | null {
  const len = varint(r);
  if (len === -1) return null;
  if (len < -1) throw new DecodeError(`record ${what} length ${len} is negative`);
  const at = r.offset;
  r.skip(len);
  return r.buf.subarray(at, at + len);
}

/** Reads one length-prefixed record; the body must use exactly its declared length. */
export function readRecord(r: Reader): Record {
  const length = varint(r);
  if (length < MIN_RECORD_BODY_SIZE || length > r.remaining) {
    throw new DecodeError(
      `record length ${length} at offset ${r.offset} is outside ${MIN_RECORD_BODY_SIZE}..${r.remaining}`,
    );
  }
  const end = r.offset + length;
  const attributes = r.int8();
  const timestampDelta = varlongNumber(r);
  const offsetDelta = varint(r);
  const key = varintBytes(r, 'key');
  const value = varintBytes(r, 'value');
  const count = varint(r);
  // Each header takes at least 2 bytes: check before allocating.
  if (count < 0 || count * 2 > end - r.offset) {
    throw new DecodeError(`record header count ${count} does not fit the ${end - r.offset} bytes left of the record`);
  }
  const headers: RecordHeader[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const keyBytes = varintBytes(r, 'header key');
    if (keyBytes === null) throw new DecodeError('record header key is null');
    headers[i] = { key: keyBytes.toString('utf8'), value: varintBytes(r, 'header value') };
  }
  if (r.offset !== end) {
    throw new DecodeError(
      `record declared ${length} bytes but its fields ${r.offset > end ? 'overrun' : 'leave'} ${Math.abs(end - r.offset)}`,
    );
  }
  return { attributes, timestampDelta, offsetDelta, key, value, headers };
}

// --- encoding ---------------------------------------------------------------------------------

function zigzagVarintSize(v: number): number {
  let u = ((v << 1) ^ (v >> 31)) >>> 0;
  let n = 1;
  while (u >= 0x80) {
    u >>>= 7;
    n++;
  }
  return n;
}

function fitsInt32(v: number): boolean {
  return v >= -0x80000000 && v <= 0x7fffffff;
}

/** A 64-bit zigzag varint of a value within int32 range is byte-identical to the 32-bit one. */
function varlongSize(v: number): number {
  if (fitsInt32(v)) return zigzagVarintSize(v);
  let u = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
  let n = 1;
  while (u >= 0x80n) {
    u >>= 7n;
    n++;
  }
  return n;
}

function bytesSize(b: Buffer | null): number {
  return b === null ? 1 : zigzagVarintSize(b.length) + b.length;
}

/** A record ready to write: header keys already UTF-8 encoded, so sizing and writing agree. */
export interface PreparedRecord {
  timestampDelta: number;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: Buffer; value: Buffer | null }[];
  bodySize: number;
}

export function prepareRecord(
  timestampDelta: number,
  offsetDelta: number,
  key: Buffer | null,
  value: Buffer | null,
  headers: readonly RecordHeader[],
): PreparedRecord {
  if (!Number.isSafeInteger(timestampDelta))
    throw new EncodeError(`timestampDelta ${timestampDelta} is not a safe integer`);
  if (!Number.isInteger(offsetDelta) || !fitsInt32(offsetDelta))
    throw new EncodeError(`offsetDelta ${offsetDelta} is not an int32`);
  const encodedHeaders = headers.map((h) => ({ key: Buffer.from(h.key, 'utf8'), value: h.value }));
  let bodySize = 1 + varlongSize(timestampDelta) + zigzagVarintSize(offsetDelta) + bytesSize(key) + bytesSize(value);
  bodySize += zigzagVarintSize(encodedHeaders.length);
  for (const h of encodedHeaders) bodySize += bytesSize(h.key) + bytesSize(h.value);
  return { timestampDelta, offsetDelta, key, value, headers: encodedHeaders, bodySize };
}

export function encodedRecordSize(p: PreparedRecord): number {
  return zigzagVarintSize(p.bodySize) + p.bodySize;
}

// Records are written straight into a buffer of the exact size computed above: no growing, no
// chunk joins, and values are copied once.

function putUvarint(buf: Buffer, pos: number, u: number): number {
  while (u >= 0x80) {
    buf[pos++] = (u & 0x7f) | 0x80;
    u >>>= 7;
  }
  buf[pos++] = u;
  return pos;
}

function putVarint(buf: Buffer, pos: number, v: number): number {
  return putUvarint(buf, pos, ((v << 1) ^ (v >> 31)) >>> 0);
}

function putVarlong(buf: Buffer, pos: number, v: number): number {
  if (fitsInt32(v)) return putVarint(buf, pos, v);
  let u = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
  while (u >= 0x80n) {
    buf[pos++] = Number(u & 0x7fn) | 0x80;
    u >>= 7n;
  }
  buf[pos++] = Number(u);
  return pos;
}

function putBytes(buf: Buffer, pos: number, b: Buffer | null): number {
  if (b === null) return putVarint(buf, pos, -1);
  pos = putVarint(buf, pos, b.length);
  return pos + b.copy(buf, pos);
}

/** Writes the record at `pos` (room: encodedRecordSize) and returns the position after it. */
export function writeRecord(buf: Buffer, pos: number, p: PreparedRecord): number {
  pos = putVarint(buf, pos, p.bodySize);
  buf[pos++] = 0; // attributes
  pos = putVarlong(buf, pos, p.timestampDelta);
  pos = putVarint(buf, pos, p.offsetDelta);
  pos = putBytes(buf, pos, p.key);
  pos = putBytes(buf, pos, p.value);
  pos = putVarint(buf, pos, p.headers.length);
  for (const h of p.headers) {
    pos = putBytes(buf, pos, h.key);
    pos = putBytes(buf, pos, h.value);
  }
  return pos;
}
