// Filtering one stored v2 batch for the compactor (Kafka's MemoryRecords.filterTo): the retained
// records are copied byte for byte into a batch with the original header (base offset, last
// offset delta, producer id/epoch, base sequence, transactional/control flags, codec), the
// records recompressed in the batch's own codec and the CRC recomputed. Offsets never change, so
// a filtered batch has gaps and may be empty (a header with no records, as Kafka's RETAIN_EMPTY).
import { compress, decompress } from '../../protocol/compression';
import { crc32c } from '../../protocol/crc32c';
import { DecodeError } from '../../protocol/errors';
import { Reader } from '../../protocol/reader';
import { readRecord } from '../../protocol/record';
import type { Record } from '../../protocol/record';
import {
  Attribute,
  ATTRIBUTES,
  BASE_TIMESTAMP,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  CRC,
  LOG_OVERHEAD,
  MAX_TIMESTAMP,
  RECORDS_COUNT,
  checkBatch,
  compression,
  timestampType,
  TimestampType,
} from '../../protocol/record-batch';

/** One record of a batch with its raw encoding (a view), so a rewrite copies it unchanged. */
export interface RawRecord {
  record: Record;
  raw: Buffer;
}

/** Decodes every record of `batch` with its raw bytes (decompressed if needed). */
export function readRawRecords(batch: Buffer): RawRecord[] {
  const size = checkBatch(batch);
  const count = batch.readInt32BE(RECORDS_COUNT);
  if (count === 0 && size === BATCH_HEADER_SIZE) return []; // already empty: no records section
  const data = decompress(compression(batch.readInt16BE(ATTRIBUTES)), batch.subarray(BATCH_HEADER_SIZE, size));
  const r = new Reader(data);
  const out: RawRecord[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.offset;
    const record = readRecord(r);
    out.push({ record, raw: data.subarray(start, r.offset) });
  }
  if (r.remaining !== 0) throw new DecodeError(`record batch has ${r.remaining} bytes after its ${count} records`);
  return out;
}

/**
 * A copy of `batch` holding only `kept` (records read from it by readRawRecords, in order). The
 * header is kept except batchLength, recordsCount, the CRC and, with CreateTime, maxTimestamp
 * (recomputed from the retained records as Kafka's builder does; an empty batch keeps it).
 */
export function rewriteBatch(batch: Buffer, kept: readonly RawRecord[]): Buffer {
  const attributes = batch.readInt16BE(ATTRIBUTES);
  let body: Buffer = Buffer.concat(kept.map((k) => k.raw));
  if (kept.length > 0) body = compress(compression(attributes) as Parameters<typeof compress>[0], body);
  const out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + body.length);
  batch.copy(out, 0, 0, BATCH_HEADER_SIZE);
  body.copy(out, BATCH_HEADER_SIZE);
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH);
  out.writeInt32BE(kept.length, RECORDS_COUNT);
  if (kept.length > 0 && timestampType(attributes) === TimestampType.CreateTime) {
    let maxDelta = kept[0]!.record.timestampDelta;
    for (const k of kept) if (k.record.timestampDelta > maxDelta) maxDelta = k.record.timestampDelta;
    out.writeBigInt64BE(batch.readBigInt64BE(BASE_TIMESTAMP) + BigInt(maxDelta), MAX_TIMESTAMP);
  }
  // An empty batch has no codec (Kafka's DefaultRecordBatch.writeEmptyHeader): librdkafka and
  // kafka-python fail to decompress a zstd/gzip batch of zero bytes and stop consuming there.
  if (kept.length === 0) out.writeInt16BE(attributes & ~Attribute.CompressionMask, ATTRIBUTES);
  out.writeUInt32BE(crc32c(out, ATTRIBUTES), CRC);
  return out;
}
