// Checks a produce request's records for one partition before anything is stored, as Kafka does
// (ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords, then LogValidator): one
// whole magic-2 batch, baseOffset 0, within max.message.bytes, a valid CRC, a known codec (zstd
// from Produce v7, KIP-110), a consistent header, then every record decoded (decompressed if need
// be) and its timestamp checked against message.timestamp.type and the before/after limits
// (KIP-937). The batch is stored as produced, except that the header's maxTimestamp becomes the
// one computed from the records (append-plan.ts writes it): Kafka does not trust the producer's.
//
// Error codes as Kafka answers them (checked against a real Kafka 4.1.1 with the cases of
// test/server/produce-validation.test.ts): CORRUPT_MESSAGE for a failed CRC or a broken batch frame,
// INVALID_RECORD for a batch or record that does not decode, INVALID_TIMESTAMP with one record error
// per bad record (KIP-467). Where minnow knowingly differs:
// - compressed data that does not decompress, and a record whose length varint is longer than
//   5 bytes: Kafka 4.1.1 answers UNKNOWN_SERVER_ERROR (an unhandled KafkaException /
//   IllegalArgumentException), which blames the broker; minnow answers INVALID_RECORD.
// - offsetDeltas other than 0..n-1: Kafka stores such an uncompressed batch as sent (consumers then
//   see odd offsets) and answers UNKNOWN_SERVER_ERROR for a compressed one; every v2 client numbers
//   records 0..n-1, so minnow refuses both with INVALID_RECORD.
// - errorMessage: Kafka sends null except with record errors; minnow says what failed.
// - a batch that decompresses to more than MAX_DECOMPRESSED_BYTES (64 MiB) gets MESSAGE_TOO_LARGE
//   (the Java producer then splits it); Kafka streams records out of the codec and has no such
//   bound. One that inflates past what its header states (records x max.message.bytes) is inflated
//   off the loop (produce-inflation.ts) and accepted, as Kafka accepts it.
import {
  CompressionType,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  DecompressionLimitError,
  decompress,
  statedSize,
} from '../protocol/compression';
import { inflateForScan } from '../protocol/inflate-for-scan';
import { crc32c } from '../protocol/crc32c';
import { ErrorCode } from '../protocol/error-codes';
import { DecodeError } from '../protocol/errors';
import { RecordTooLargeError } from '../protocol/record-framing';
import {
  ATTRIBUTES,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  LOG_OVERHEAD,
  MAGIC,
  type RecordBatchHeader,
  TimestampType,
  compression,
  isControl,
  readBatchHeader,
  timestampType,
} from '../protocol/record-batch';
import { RecordScanError, scanRecords } from '../protocol/record-scan';
import { BatchCheck, fail, refuse } from './produce-batch-check';
import { GZIP_PROBE_ABOVE_BYTES, type Inflated, inflationLimit, probeGzip } from './produce-inflation';
import type { ProducePolicy } from './produce-policy';
import { checkKeys, checkTimestamps, NO_TIMESTAMP } from './produce-record-checks';

/**
 * Output bound for decompressing one batch: the codecs' default (compression.ts), 64 MiB. Not tied to
 * max.message.bytes: the producer sizes batches by their compressed size, and repetitive data
 * legitimately compresses 10-100x. Validation is synchronous, so one such buffer at a time is alive
 * on the 1 GiB instance; 64 MiB is 64x the default max.message.bytes.
 */
export const MAX_DECOMPRESSED_BYTES = DEFAULT_MAX_DECOMPRESSED_BYTES;

/** LegacyRecord.RECORD_OVERHEAD_V0: Kafka's batch iterator calls a smaller size corrupt. */
const MIN_RECORD_OVERHEAD = 14;

/** Kafka's magic values: 0 and 1 (old message sets) and 2 (record batches). */
const CURRENT_MAGIC = 2;

/** What Kafka's batch iterator found: no batch, a batch, or a corrupt one (and why). */
type NextBatch = { kind: 'none' } | { kind: 'batch' } | { kind: 'corrupt'; message: string };

/**
 * What Kafka's batch iterator (ByteBufferLogInputStream.nextBatch/nextBatchSize) sees at the start of
 * `buf`, in its order: no batch when fewer than 12 bytes are left; corrupt when the size is below the
 * smallest record; no batch when fewer than the 17 bytes up to the magic byte are left; corrupt when
 * the (signed) magic is not 0-2; no batch when the batch runs past the end. (Its check against a
 * maximum size is moot here: MemoryRecords.batches() passes Integer.MAX_VALUE.)
 */
function nextBatch(buf: Buffer): NextBatch {
  if (buf.length < LOG_OVERHEAD) return { kind: 'none' };
  const batchLength = buf.readInt32BE(BATCH_LENGTH);
  if (batchLength < MIN_RECORD_OVERHEAD) {
    return {
      kind: 'corrupt',
      message: `Record size ${batchLength} is less than the minimum record overhead (${MIN_RECORD_OVERHEAD})`,
    };
  }
  if (buf.length < MAGIC + 1) return { kind: 'none' };
  const magic = buf.readInt8(MAGIC);
  if (magic < 0 || magic > CURRENT_MAGIC)
    return { kind: 'corrupt', message: `Invalid magic found in record: ${magic}` };
  if (LOG_OVERHEAD + batchLength > buf.length) return { kind: 'none' };
  return { kind: 'batch' };
}

/**
 * `topicPartition` ("topic-0") names the partition in the compacted-topic key error, as Kafka's
 * TopicPartition.toString does.
 */
export function validateProduceRecords(
  records: Buffer | null,
  policy: ProducePolicy,
  topicPartition = '',
  inflated?: Inflated,
): BatchCheck {
  const v = policy.produceVersion;
  // ProduceRequest.validateRecords: exactly one whole magic-2 batch, as Kafka's iterator reads them;
  // its CorruptRecordException is an ApiException, answered CORRUPT_MESSAGE (KafkaApis.handleProduceRequest).
  const first: NextBatch = records === null ? { kind: 'none' } : nextBatch(records);
  if (first.kind === 'corrupt') return refuse(ErrorCode.CORRUPT_MESSAGE, first.message);
  if (records === null || first.kind === 'none') {
    return refuse(
      ErrorCode.INVALID_RECORD,
      `Produce requests with version ${v} must have at least one record batch per partition`,
    );
  }
  if (records[MAGIC] !== 2) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      `Produce requests with version ${v} are only allowed to contain record batches with magic version 2, found magic ${records[MAGIC]}`,
    );
  }
  // Kafka checks zstd before it looks for a second batch.
  if (policy.produceVersion < 7 && compression(records.readInt16BE(ATTRIBUTES)) === CompressionType.Zstd) {
    return refuse(
      ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      `zstd needs Produce v7 or later, the request is v${policy.produceVersion}`,
    );
  }
  const size = LOG_OVERHEAD + records.readInt32BE(BATCH_LENGTH);
  const second = nextBatch(records.subarray(size));
  if (second.kind === 'batch')
    return refuse(
      ErrorCode.INVALID_RECORD,
      `Produce requests with version ${v} are only allowed to contain exactly one record batch per partition`,
    );
  if (second.kind === 'corrupt')
    return refuse(
      ErrorCode.CORRUPT_MESSAGE,
      `the ${records.length - size} bytes after the record batch are corrupt: ${second.message}`,
    );
  // A partial batch after the first is dropped, as Kafka's log trims invalid trailing bytes.
  const data = size === records.length ? records : records.subarray(0, size);
  let header: RecordBatchHeader;
  try {
    header = readBatchHeader(data, 0);
  } catch (err) {
    if (err instanceof DecodeError) return fail(ErrorCode.CORRUPT_MESSAGE, err.message);
    throw err;
  }
  return validateBatch(data, header, policy, topicPartition, inflated);
}

/**
 * The answer that has the caller inflate the records off the loop, up to the ceiling, then validate
 * again (validateProduceRecords).
 */
function inflateOffLoopFirst(codec: number, compressed: Buffer, ceiling: number, recordsCount: number): BatchCheck {
  return {
    ok: false,
    errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
    message: 'the records were not inflated (validateProduceRecords needs them inflated off the loop)',
    recordErrors: [],
    withLogStartOffset: false,
    inflate: { codec, compressed, limit: ceiling, recordsCount, maxRecordBytes: ceiling },
  };
}

function validateBatch(
  data: Buffer,
  header: RecordBatchHeader,
  policy: ProducePolicy,
  topicPartition: string,
  inflated: Inflated | undefined,
): BatchCheck {
  const codec = compression(header.attributes);
  if (codec > CompressionType.Zstd)
    return fail(
      ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      `unknown compression codec ${codec} in the batch attributes, expected 0-4`,
    );
  if (header.baseOffset !== 0n)
    return fail(
      ErrorCode.INVALID_RECORD,
      `The baseOffset of the record batch should be 0, but it is ${header.baseOffset}`,
    );
  if (data.length > policy.maxMessageBytes) {
    return fail(
      ErrorCode.MESSAGE_TOO_LARGE,
      `record batch of ${data.length} bytes exceeds max.message.bytes=${policy.maxMessageBytes}`,
    );
  }
  // The CRC covers attributes..end (the header was read once above; no second bounds check).
  if (crc32c(data, ATTRIBUTES, data.length) !== header.crc)
    return fail(ErrorCode.CORRUPT_MESSAGE, `record batch failed its CRC-32C check (stored crc = ${header.crc})`);

  // LogValidator.validateBatch
  const count = header.recordsCount;
  if (header.lastOffsetDelta < 0)
    return fail(ErrorCode.INVALID_RECORD, `Batch has an invalid offset range: [0, ${header.lastOffsetDelta}]`);
  if (count <= 0) return fail(ErrorCode.INVALID_RECORD, `Invalid reported count for record batch: ${count}`);
  if (header.lastOffsetDelta + 1 !== count) {
    return fail(
      ErrorCode.INVALID_RECORD,
      `Inconsistent batch offset range [0, ${header.lastOffsetDelta}] and count of records ${count}`,
    );
  }
  if (isControl(header.attributes))
    return fail(ErrorCode.INVALID_RECORD, 'Clients are not allowed to write control records');
  if (header.producerId >= 0n && header.baseSequence < 0) {
    return fail(
      ErrorCode.INVALID_RECORD,
      `Invalid sequence number ${header.baseSequence} in record batch with producerId ${header.producerId}`,
    );
  }
  // Transactional batches are checked against the producer's transaction by storage, inside the
  // append's write transaction (txn-rules.ts: epoch, ongoing, partition added per KIP-890).

  // The records: decompressed into one buffer (the codecs have no cheaper way to reach them), then
  // walked. On the loop a batch inflates to at most what its header states (records x
  // max.message.bytes, produce-inflation.ts), or what its data states when that is less; one that
  // states more, or turns out larger, is left to the caller to inflate off the loop up to the
  // ceiling: Kafka bounds only the compressed batch, so 1 MiB records that compress well are
  // accepted as Kafka accepts them (franz-go's TestConsumeMaxDecompressBatchBytes sends three in
  // one 3 KB gzip batch).
  const ceiling = policy.maxDecompressedBytes ?? MAX_DECOMPRESSED_BYTES;
  const limit = inflationLimit(count, policy.maxMessageBytes, ceiling);
  // (Not made for an uncompressed batch: a view is an allocation too.)
  const compressed = codec === CompressionType.None ? data : data.subarray(BATCH_HEADER_SIZE);
  const onLoop = codec !== CompressionType.None && inflated === undefined;
  const onLoopMax = policy.inflateOnLoopMaxBytes ?? Infinity;
  let onLoopLimit = limit;
  if (onLoop && limit > onLoopMax) {
    // Issue 33: the off-loop path (a stream, a new buffer per chunk, promises) cost 1.3-6x the
    // inflation itself for ordinary batches of 16-256 records, which state their size (statedSize:
    // the codec holds the output to it).
    // A batch that does not state its size (zstd-jni's frames, as the Java producer writes them) is
    // inflated on the loop up to what a batch may state (onLoopMax), then off the loop if larger.
    const stated = statedSize(codec, compressed);
    if (stated !== undefined && stated > onLoopMax) return inflateOffLoopFirst(codec, compressed, ceiling, count);
    onLoopLimit = stated ?? onLoopMax;
  }
  let records: Buffer;
  try {
    if (inflated instanceof Error) throw inflated;
    if (codec === CompressionType.Gzip && inflated === undefined && onLoopLimit > GZIP_PROBE_ABOVE_BYTES)
      probeGzip(compressed, count, policy.maxMessageBytes);
    records = codec === CompressionType.None ? data : (inflated ?? inflateForScan(codec, compressed, onLoopLimit));
  } catch (err) {
    if (err instanceof DecompressionLimitError || err instanceof RecordTooLargeError) {
      // Past the header's budget, or what the data stated (a gzip trailer that lies): off the loop.
      if (onLoop && onLoopLimit < ceiling) {
        if (policy.inflateOnLoopMaxBytes !== undefined) return inflateOffLoopFirst(codec, compressed, ceiling, count);
        return validateBatch(data, header, policy, topicPartition, inflateToCeiling(codec, data, ceiling));
      }
      return fail(ErrorCode.MESSAGE_TOO_LARGE, `${err.message}; send smaller batches`);
    }
    if (err instanceof DecodeError)
      return fail(ErrorCode.INVALID_RECORD, `the records do not decompress: ${err.message}`);
    throw err;
  }
  const start = codec === CompressionType.None ? BATCH_HEADER_SIZE : 0;
  let scan;
  try {
    scan = scanRecords(records, start, records.length, count);
  } catch (err) {
    if (err instanceof RecordScanError) return fail(ErrorCode.INVALID_RECORD, err.message);
    throw err;
  }

  // LogValidator.validateKey: a compacted topic keeps the latest record per key, so none may lack one.
  // The scan counted null keys; only a batch that has some is walked again to name them.
  if (policy.compacted && scan.nullKeys > 0) {
    const keyless = checkKeys(records, start, count, topicPartition);
    if (keyless) return keyless;
  }

  // LogValidator.validateTimestamp. A batch flagged LogAppendTime gives every record its maxTimestamp.
  const flaggedLogAppendTime = timestampType(header.attributes) === TimestampType.LogAppendTime;
  const base = flaggedLogAppendTime ? header.maxTimestamp : header.baseTimestamp;
  const minDelta = flaggedLogAppendTime ? 0 : scan.minTimestampDelta;
  const maxDelta = flaggedLogAppendTime ? 0 : scan.maxTimestampDelta;
  if (flaggedLogAppendTime || !policy.logAppendTime) {
    const checked = checkTimestamps(records, start, count, policy, base, minDelta, maxDelta, flaggedLogAppendTime);
    if (checked) return checked;
  }
  // Kafka's maxBatchTimestamp starts at NO_TIMESTAMP and takes the records' maximum.
  const maxTimestamp = base + BigInt(maxDelta);
  header.maxTimestamp = maxTimestamp > BigInt(NO_TIMESTAMP) ? maxTimestamp : BigInt(NO_TIMESTAMP);
  return { ok: true, batches: [{ header, data }] };
}

/** Validation called without an off-loop step (no inflateOnLoopMaxBytes): inflate here, to the ceiling. */
function inflateToCeiling(codec: number, data: Buffer, ceiling: number): Inflated {
  try {
    return decompress(codec, data.subarray(BATCH_HEADER_SIZE), ceiling);
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
}
