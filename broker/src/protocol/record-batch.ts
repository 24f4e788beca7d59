/**
 * Record batch v2 (magic 2), the unit the broker stores and serves (KIP-98; protocol guide
 * "Record Batch", https://kafka.apache.org/documentation/#recordbatch). The broker mostly touches
 * the 61-byte header: it reads it, checks the CRC, and rewrites baseOffset and
 * partitionLeaderEpoch in place, which the CRC does not cover. Records are in record.ts.
 */
import { CompressionType, DEFAULT_MAX_DECOMPRESSED_BYTES, compress, decompress } from './compression';
import { crc32c } from './crc32c';
import { DecodeError, EncodeError } from './errors';
import { Reader } from './reader';
import {
  type PreparedRecord,
  type Record,
  type RecordHeader,
  MIN_RECORD_BODY_SIZE,
  encodedRecordSize,
  prepareRecord,
  readRecord,
  writeRecord,
} from './record';

export type { Record, RecordHeader } from './record';

// Byte offsets of the header fields.
export const BASE_OFFSET = 0;
export const BATCH_LENGTH = 8;
export const PARTITION_LEADER_EPOCH = 12;
export const MAGIC = 16;
export const CRC = 17;
export const ATTRIBUTES = 21;
export const LAST_OFFSET_DELTA = 23;
export const BASE_TIMESTAMP = 27;
export const MAX_TIMESTAMP = 35;
export const PRODUCER_ID = 43;
export const PRODUCER_EPOCH = 51;
export const BASE_SEQUENCE = 53;
export const RECORDS_COUNT = 57;
export const BATCH_HEADER_SIZE = 61;

/** baseOffset and batchLength precede what batchLength counts. */
export const LOG_OVERHEAD = 12;
/** The smallest valid batchLength: a header with no records. */
export const MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD;
export const CURRENT_MAGIC = 2;

/** Attribute bits (int16). */
export const Attribute = {
  CompressionMask: 0x07,
  TimestampType: 0x08,
  Transactional: 0x10,
  Control: 0x20,
  DeleteHorizon: 0x40,
} as const;

export const TimestampType = { CreateTime: 0, LogAppendTime: 1 } as const;
export type TimestampType = (typeof TimestampType)[keyof typeof TimestampType];

export interface RecordBatchHeader {
  baseOffset: bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordsCount: number;
}

/** The codec in attributes bits 0-2 (see CompressionType). */
export function compression(attributes: number): number {
  return attributes & Attribute.CompressionMask;
}
export function timestampType(attributes: number): TimestampType {
  return attributes & Attribute.TimestampType ? TimestampType.LogAppendTime : TimestampType.CreateTime;
}
export function isTransactional(attributes: number): boolean {
  return (attributes & Attribute.Transactional) !== 0;
}
export function isControl(attributes: number): boolean {
  return (attributes & Attribute.Control) !== 0;
}

/**
 * Checks that a whole v2 batch starts at `offset`: the magic byte first (a v0/v1 message set
 * has another layout past it), then a batchLength that covers the header and fits the buffer.
 * Returns the batch's total size in bytes.
 */
export function checkBatch(buf: Buffer, offset = 0): number {
  const left = buf.length - offset;
  if (offset < 0 || left < MAGIC + 1) {
    throw new DecodeError(
      `record batch needs ${BATCH_HEADER_SIZE} bytes at offset ${offset}, only ${Math.max(0, left)} left`,
    );
  }
  const magic = buf.readInt8(offset + MAGIC);
  if (magic !== CURRENT_MAGIC) {
    throw new DecodeError(`record batch magic is ${magic}, expected 2 (message format v0/v1 is not supported)`);
  }
  const batchLength = buf.readInt32BE(offset + BATCH_LENGTH);
  if (batchLength < MIN_BATCH_LENGTH) {
    throw new DecodeError(`record batch length ${batchLength} is less than the header's ${MIN_BATCH_LENGTH}`);
  }
  if (batchLength > left - LOG_OVERHEAD) {
    throw new DecodeError(`record batch length ${batchLength} exceeds the ${left - LOG_OVERHEAD} bytes left`);
  }
  return LOG_OVERHEAD + batchLength;
}

/** Reads the 61-byte header without touching (or decompressing) the records. */
export function readBatchHeader(buf: Buffer, offset = 0): RecordBatchHeader {
  checkBatch(buf, offset);
  const o = offset;
  return {
    baseOffset: buf.readBigInt64BE(o + BASE_OFFSET),
    batchLength: buf.readInt32BE(o + BATCH_LENGTH),
    partitionLeaderEpoch: buf.readInt32BE(o + PARTITION_LEADER_EPOCH),
    magic: buf.readInt8(o + MAGIC),
    crc: buf.readUInt32BE(o + CRC),
    attributes: buf.readInt16BE(o + ATTRIBUTES),
    lastOffsetDelta: buf.readInt32BE(o + LAST_OFFSET_DELTA),
    baseTimestamp: buf.readBigInt64BE(o + BASE_TIMESTAMP),
    maxTimestamp: buf.readBigInt64BE(o + MAX_TIMESTAMP),
    producerId: buf.readBigInt64BE(o + PRODUCER_ID),
    producerEpoch: buf.readInt16BE(o + PRODUCER_EPOCH),
    baseSequence: buf.readInt32BE(o + BASE_SEQUENCE),
    recordsCount: buf.readInt32BE(o + RECORDS_COUNT),
  };
}

/** True if the stored CRC matches attributes..end. Throws DecodeError if `batch` is not a batch. */
export function verifyBatchCrc(batch: Buffer): boolean {
  const size = checkBatch(batch);
  return crc32c(batch, ATTRIBUTES, size) === batch.readUInt32BE(CRC);
}

/**
 * Splits concatenated batches (a Produce or Fetch `records` field) into zero-copy views. A Fetch
 * response may end with a partial batch (it is cut at maxBytes), so an incomplete tail is counted
 * in `trailingBytes`, not rejected. Magic is not checked here; readBatchHeader does that.
 */
export function splitBatches(records: Buffer): { batches: Buffer[]; trailingBytes: number } {
  const batches: Buffer[] = [];
  let at = 0;
  while (records.length - at >= LOG_OVERHEAD) {
    const batchLength = records.readInt32BE(at + BATCH_LENGTH);
    if (batchLength < MIN_BATCH_LENGTH) {
      throw new DecodeError(`record batch length ${batchLength} at offset ${at} is less than ${MIN_BATCH_LENGTH}`);
    }
    const size = LOG_OVERHEAD + batchLength;
    if (size > records.length - at) break;
    batches.push(records.subarray(at, at + size));
    at += size;
  }
  return { batches, trailingBytes: records.length - at };
}

/** Rewrites baseOffset in place (the broker assigns offsets on append). The CRC stays valid. */
export function setBaseOffset(batch: Buffer, baseOffset: bigint): void {
  batch.writeBigInt64BE(baseOffset, BASE_OFFSET);
}

/** Rewrites partitionLeaderEpoch in place. The CRC stays valid. */
export function setPartitionLeaderEpoch(batch: Buffer, epoch: number): void {
  batch.writeInt32BE(epoch, PARTITION_LEADER_EPOCH);
}

/**
 * Sets the timestamp type bit and maxTimestamp, then recomputes the CRC, which covers both; does
 * nothing when they already hold these values (Kafka's DefaultRecordBatch.setMaxTimestamp, which
 * its LogValidator calls on every batch it stores in place). Returns whether it rewrote the batch.
 */
export function setMaxTimestamp(batch: Buffer, type: TimestampType, maxTimestamp: bigint): boolean {
  const attributes = batch.readInt16BE(ATTRIBUTES);
  if (timestampType(attributes) === type && batch.readBigInt64BE(MAX_TIMESTAMP) === maxTimestamp) return false;
  const withType =
    type === TimestampType.LogAppendTime ? attributes | Attribute.TimestampType : attributes & ~Attribute.TimestampType;
  batch.writeInt16BE(withType, ATTRIBUTES);
  batch.writeBigInt64BE(maxTimestamp, MAX_TIMESTAMP);
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES, batch.length), CRC);
  return true;
}

/** Offset of the batch's last record. */
export function lastOffset(header: RecordBatchHeader): bigint {
  return header.baseOffset + BigInt(header.lastOffsetDelta);
}

// --- records ----------------------------------------------------------------------------------

export interface DecodeRecordsOptions {
  /** Output limit for a compressed batch; DecodeError beyond it. */
  maxDecompressedBytes?: number;
}

/**
 * Decodes every record of one batch, decompressing if its attributes say so. Keys, values and
 * header values are views into the batch (or into the decompressed buffer). Like Kafka's
 * DefaultRecordBatch, it insists that recordsCount records use up the records section exactly.
 */
export function decodeRecords(batch: Buffer, opts: DecodeRecordsOptions = {}): Record[] {
  const size = checkBatch(batch);
  const count = batch.readInt32BE(RECORDS_COUNT);
  if (count < 0) throw new DecodeError(`record batch recordsCount ${count} is negative`);
  // An empty batch (kept by compaction, Kafka's writeEmptyHeader) has no records section at all.
  if (count === 0 && size === BATCH_HEADER_SIZE) return [];
  const codec = compression(batch.readInt16BE(ATTRIBUTES));
  const data = decompress(
    codec,
    batch.subarray(BATCH_HEADER_SIZE, size),
    opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES,
  );
  // Every record takes at least 7 bytes: reject an impossible count before allocating the array.
  if (count > data.length / (MIN_RECORD_BODY_SIZE + 1)) {
    throw new DecodeError(`record batch claims ${count} records but holds only ${data.length} bytes of records`);
  }
  const r = new Reader(data);
  const records: Record[] = new Array(count);
  for (let i = 0; i < count; i++) records[i] = readRecord(r);
  if (r.remaining !== 0) throw new DecodeError(`record batch has ${r.remaining} bytes after its ${count} records`);
  return records;
}

export interface RecordInput {
  key?: Buffer | null;
  value: Buffer | null;
  headers?: readonly RecordHeader[];
  /** Absolute timestamp (ms); or give timestampDelta. Defaults to the batch's baseTimestamp. */
  timestamp?: bigint;
  timestampDelta?: number;
  /** Defaults to the record's index in the batch. */
  offsetDelta?: number;
}

export interface RecordBatchInput {
  records: readonly RecordInput[];
  /** Producers send 0; the broker assigns the real one with setBaseOffset. */
  baseOffset?: bigint;
  /** Producers send -1 (RecordBatch.NO_PARTITION_LEADER_EPOCH). */
  partitionLeaderEpoch?: number;
  compression?: CompressionType;
  timestampType?: TimestampType;
  /** Defaults to the first record's timestamp, else now. */
  baseTimestamp?: bigint;
  /** Defaults to the largest record timestamp (as the Java client computes it). */
  maxTimestamp?: bigint;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
  isControl?: boolean;
}

function writeRecords(buf: Buffer, pos: number, prepared: readonly PreparedRecord[]): void {
  for (const p of prepared) pos = writeRecord(buf, pos, p);
  if (pos !== buf.length) throw new EncodeError(`records took ${pos} bytes, sized ${buf.length}`);
}

/** Encodes one v2 batch: computes lastOffsetDelta, maxTimestamp, batchLength and the CRC. */
export function encodeRecordBatch(input: RecordBatchInput): Buffer {
  const { records } = input;
  if (records.length === 0) throw new EncodeError('a record batch needs at least one record');
  const baseTimestamp = input.baseTimestamp ?? records[0]!.timestamp ?? BigInt(Date.now());
  let maxDelta = -Infinity;
  let lastOffsetDelta = -1;
  let recordsSize = 0;
  const prepared: PreparedRecord[] = records.map((rec, i) => {
    const timestampDelta =
      rec.timestampDelta ?? (rec.timestamp === undefined ? 0 : Number(rec.timestamp - baseTimestamp));
    const offsetDelta = rec.offsetDelta ?? i;
    maxDelta = Math.max(maxDelta, timestampDelta);
    lastOffsetDelta = Math.max(lastOffsetDelta, offsetDelta);
    const p = prepareRecord(timestampDelta, offsetDelta, rec.key ?? null, rec.value, rec.headers ?? []);
    recordsSize += encodedRecordSize(p);
    return p;
  });
  const codec = input.compression ?? CompressionType.None;
  let out: Buffer;
  if (codec === CompressionType.None) {
    out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + recordsSize);
    writeRecords(out, BATCH_HEADER_SIZE, prepared);
  } else {
    const raw = Buffer.allocUnsafe(recordsSize);
    writeRecords(raw, 0, prepared);
    const body = compress(codec, raw);
    out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + body.length);
    body.copy(out, BATCH_HEADER_SIZE);
  }
  let attributes = codec;
  if (input.timestampType === TimestampType.LogAppendTime) attributes |= Attribute.TimestampType;
  if (input.isTransactional) attributes |= Attribute.Transactional;
  if (input.isControl) attributes |= Attribute.Control;
  out.writeBigInt64BE(input.baseOffset ?? 0n, BASE_OFFSET);
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH);
  out.writeInt32BE(input.partitionLeaderEpoch ?? -1, PARTITION_LEADER_EPOCH);
  out.writeInt8(CURRENT_MAGIC, MAGIC);
  out.writeInt16BE(attributes, ATTRIBUTES);
  out.writeInt32BE(lastOffsetDelta, LAST_OFFSET_DELTA);
  out.writeBigInt64BE(baseTimestamp, BASE_TIMESTAMP);
  out.writeBigInt64BE(input.maxTimestamp ?? baseTimestamp + BigInt(maxDelta), MAX_TIMESTAMP);
  out.writeBigInt64BE(input.producerId ?? -1n, PRODUCER_ID);
  out.writeInt16BE(input.producerEpoch ?? -1, PRODUCER_EPOCH);
  out.writeInt32BE(input.baseSequence ?? -1, BASE_SEQUENCE);
  out.writeInt32BE(records.length, RECORDS_COUNT);
  out.writeUInt32BE(crc32c(out, ATTRIBUTES), CRC);
  return out;
}
