// Small rules every engine applies the same way (fetch range, retention, DeleteRecords, producer
// epochs), kept here so the SQLite, memory and future PostgreSQL engines cannot drift apart.
import { ErrorCode } from '../protocol/error-codes';
import { topicConfig } from './topic-config';
import type { ProducerPartitionState } from './producer-state';
import type { PartitionOffsets, ReadResult, RetentionDefaults } from './storage';

/**
 * The ReadResult for a fetch that returns nothing: outside [logStartOffset, highWatermark]
 * (OFFSET_OUT_OF_RANGE), at the high watermark, or with readCommitted at or past the last stable
 * offset (no error: the data is there, just not stable yet). Null if it may be served.
 */
export function checkFetchOffset(
  offsets: PartitionOffsets,
  fetchOffset: number,
  lastStableOffset: number = offsets.highWatermark,
  readCommitted = false,
): ReadResult | null {
  const { logStartOffset, highWatermark } = offsets;
  if (fetchOffset < logStartOffset || fetchOffset > highWatermark) {
    return {
      errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
      highWatermark,
      logStartOffset,
      lastStableOffset: -1,
      batches: [],
      abortedTransactions: [],
    };
  }
  if (fetchOffset === highWatermark || (readCommitted && fetchOffset >= lastStableOffset))
    return {
      errorCode: ErrorCode.NONE,
      highWatermark,
      logStartOffset,
      lastStableOffset,
      batches: [],
      abortedTransactions: [],
    };
  return null;
}

export function unknownPartitionRead(): ReadResult {
  return {
    errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    highWatermark: -1,
    logStartOffset: -1,
    lastStableOffset: -1,
    batches: [],
    abortedTransactions: [],
  };
}

/**
 * Whether a fetch that already holds `totalBytes` takes the next batch: KIP-74 returns the first
 * batch whatever its size, so the consumer always makes progress, then whole batches while they fit.
 * Without `minOneBatch` (a fetch that already has data from an earlier partition, Kafka's
 * minOneMessage=false) the first batch must fit too.
 */
export function fitsFetch(totalBytes: number, batchBytes: number, maxBytes: number, minOneBatch = true): boolean {
  return (minOneBatch && totalBytes === 0) || totalBytes + batchBytes <= maxBytes;
}

export interface RetentionLimits {
  /** Batches whose maxTimestamp is below this are expired; -Infinity when retention.ms is -1. */
  minTimestamp: number;
  /** Partition size above which the oldest batches go; Infinity when retention.bytes is -1. */
  maxBytes: number;
}

/** The effective retention of a topic (its overrides, else the broker defaults). */
export function retentionLimits(
  configs: Record<string, string>,
  defaults: RetentionDefaults,
  nowMs: number,
): RetentionLimits {
  // A compact-only topic keeps its data: retention applies with the delete policy only.
  const policy = configs['cleanup.policy'] ?? defaults.cleanupPolicy ?? 'delete';
  if (!policy.split(',').some((p) => p.trim() === 'delete')) return { minTimestamp: -Infinity, maxBytes: Infinity };
  const ms = 'retention.ms' in configs ? Number(topicConfig(configs, 'retention.ms')) : defaults.retentionMs;
  const bytes =
    'retention.bytes' in configs ? Number(topicConfig(configs, 'retention.bytes')) : defaults.retentionBytes;
  return { minTimestamp: ms >= 0 ? nowMs - ms : -Infinity, maxBytes: bytes >= 0 ? bytes : Infinity };
}

/**
 * Whether retention deletes the oldest remaining batch. By time any expired batch goes (Kafka
 * deletes even the active segment once it is expired); by size the partition shrinks to at most
 * retention.bytes, but the batch ending at highWatermark - 1 stays, like Kafka's active segment.
 */
export function retentionDeletes(
  batch: { lastOffset: number; maxTimestamp: number; size: number },
  partitionBytes: number,
  highWatermark: number,
  limits: RetentionLimits,
): boolean {
  if (batch.maxTimestamp < limits.minTimestamp) return true;
  return partitionBytes > limits.maxBytes && batch.lastOffset < highWatermark - 1;
}

/**
 * DeleteRecords: -1 means "up to the high watermark"; anything else must be within [0, HW].
 * Returns the new log start offset or an error code.
 */
export function deleteRecordsTarget(
  offsets: PartitionOffsets,
  offset: number,
): { errorCode: number; logStartOffset: number } {
  const target = offset === -1 ? offsets.highWatermark : offset;
  if (target < 0 || target > offsets.highWatermark)
    return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: offsets.logStartOffset };
  return { errorCode: ErrorCode.NONE, logStartOffset: Math.max(offsets.logStartOffset, target) };
}

/** Producer epochs are int16; Kafka moves to a new producer id before the epoch reaches Short.MAX_VALUE. */
export const MAX_PRODUCER_EPOCH = 32767;

/** The epoch after a transactional producer re-initializes, or null when it needs a new producer id. */
export function bumpedEpoch(epoch: number): number | null {
  const next = epoch + 1;
  return next >= MAX_PRODUCER_EPOCH ? null : next;
}

/**
 * Offset of the last record a producer wrote to a partition (its newest batch's sequences span as
 * many offsets as records), or -1. Producers below the log start offset are forgotten, as in Kafka.
 */
export function producerLastOffset(state: ProducerPartitionState): number {
  const newest = state.batches[state.batches.length - 1];
  if (!newest) return -1;
  const span =
    newest.lastSeq >= newest.firstSeq
      ? newest.lastSeq - newest.firstSeq
      : newest.lastSeq + 0x80000000 - newest.firstSeq;
  return newest.baseOffset + span;
}
