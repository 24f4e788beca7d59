// Checks a produce request's records for one partition before anything is stored: only whole
// magic-2 batches with a valid CRC, within max.message.bytes, with a known codec (zstd only from
// Produce v7, KIP-110), no control or transactional batches (no transactions yet).
import { ErrorCode } from '../protocol/error-codes';
import { DecodeError } from '../protocol/errors';
import { crc32c } from '../protocol/crc32c';
import { ATTRIBUTES, compression, isControl, isTransactional, LOG_OVERHEAD, readBatchHeader, RecordBatchHeader } from '../protocol/record-batch';
import { CompressionType } from '../protocol/compression';

export type BatchCheck =
  | { ok: true; batches: { header: RecordBatchHeader; data: Buffer }[] }
  | { ok: false; errorCode: number; message: string };

const fail = (errorCode: number, message: string): BatchCheck => ({ ok: false, errorCode, message });

export function validateProduceRecords(records: Buffer | null, maxMessageBytes: number, produceVersion: number): BatchCheck {
  if (records === null || records.length === 0) return fail(ErrorCode.CORRUPT_MESSAGE, 'the partition carries no record batch');
  const batches: { header: RecordBatchHeader; data: Buffer }[] = [];
  let at = 0;
  while (at < records.length) {
    let header: RecordBatchHeader;
    try {
      header = readBatchHeader(records, at); // checks magic and that the whole batch is there
    } catch (err) {
      if (err instanceof DecodeError) return fail(ErrorCode.CORRUPT_MESSAGE, err.message);
      throw err;
    }
    const size = LOG_OVERHEAD + header.batchLength;
    const data = records.subarray(at, at + size);
    if (size > maxMessageBytes) {
      return fail(ErrorCode.MESSAGE_TOO_LARGE, `record batch of ${size} bytes exceeds max.message.bytes=${maxMessageBytes}`);
    }
    // The CRC covers attributes..end (the header was read once above; no second bounds check).
    if (crc32c(data, ATTRIBUTES, size) !== header.crc) return fail(ErrorCode.CORRUPT_MESSAGE, `record batch at byte ${at} failed its CRC-32C check`);
    const codec = compression(header.attributes);
    if (codec > CompressionType.Zstd) return fail(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `unknown compression codec ${codec}`);
    if (codec === CompressionType.Zstd && produceVersion < 7) {
      return fail(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `zstd needs Produce v7 or later, the request is v${produceVersion}`);
    }
    if (isControl(header.attributes)) return fail(ErrorCode.INVALID_RECORD, 'clients may not produce control batches');
    if (isTransactional(header.attributes)) return fail(ErrorCode.INVALID_TXN_STATE, 'transactions are not supported by minnow yet');
    if (header.recordsCount <= 0 || header.lastOffsetDelta !== header.recordsCount - 1) {
      return fail(ErrorCode.INVALID_RECORD, `record batch has ${header.recordsCount} records but lastOffsetDelta ${header.lastOffsetDelta}`);
    }
    batches.push({ header, data });
    at += size;
  }
  return { ok: true, batches };
}
