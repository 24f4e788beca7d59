// The log part of the Storage interface (storage.ts composes it): appending batches, reading
// them back, the partitions' offsets, and DeleteRecords. Retention and compaction, which clean the
// log, are log-cleanup-store.ts.
import type { RecordBatchHeader } from '../protocol/record-batch';

export interface PartitionOffsets {
  logStartOffset: number;
  /** One past the last offset (log end offset = high watermark with a single replica). */
  highWatermark: number;
}

/** One partition's part of a produce request: its batches, already validated (produce-validation.ts). */
export interface PartitionAppend {
  topic: string;
  partition: number;
  /**
   * `header` as validated: its maxTimestamp is the one computed from the records (Kafka does not
   * trust the producer's), which the engine writes into `data` (with the CRC) if it differs.
   */
  batches: { header: RecordBatchHeader; data: Buffer }[];
  /** message.timestamp.type of the topic: with LogAppendTime the engine stamps maxTimestamp. */
  logAppendTime: boolean;
}

export interface PartitionAppendResult {
  errorCode: number;
  /** Offset of the first appended record (or of the original, for a retried duplicate); -1 on error. */
  baseOffset: number;
  /** The append time stamped with LogAppendTime, else -1. */
  logAppendTimeMs: number;
  logStartOffset: number;
  errorMessage: string | null;
}

export interface ReadResult {
  errorCode: number;
  highWatermark: number;
  logStartOffset: number;
  /**
   * The first offset of the partition's oldest ongoing transaction, else the high watermark; never
   * below the log start offset (Kafka's firstUnstableOffset). -1 on errors.
   */
  lastStableOffset: number;
  /** Stored batches from the one holding fetchOffset on; the first even if larger than maxBytes (KIP-74). */
  batches: Buffer[];
  /**
   * With readCommitted: the aborted transactions whose range overlaps [fetchOffset, end of the last
   * returned batch], ordered by first offset (Kafka's collectAbortedTransactions). Empty otherwise.
   */
  abortedTransactions: AbortedTransaction[];
}

/** One aborted transaction in a partition, as Kafka's .txnindex holds it. */
export interface AbortedTransaction {
  producerId: number;
  /** The transaction's first offset in this partition. */
  firstOffset: number;
  /** The offset of its ABORT marker. */
  lastOffset: number;
}

export interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  data: Buffer;
}

export interface DeleteRecordsResult extends PartitionOffsets {
  errorCode: number;
}

export interface RecordStore {
  /**
   * Appends every partition's batches in one transaction; returns once it committed. The engine
   * may keep the batches' buffers (the SQLite tail cache reads from them): the caller must not
   * change them afterwards.
   */
  append(parts: readonly PartitionAppend[], nowMs: number): PartitionAppendResult[];
  /**
   * Whole batches from the one holding `fetchOffset`, up to `maxBytes` in total; the first batch
   * comes whatever its size unless `minOneBatch` is false (KIP-74). Only those batches are loaded.
   */
  read(
    topic: string,
    partition: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch?: boolean,
    /** Fetch isolation_level 1: only batches below the last stable offset, plus the aborted ranges. */
    readCommitted?: boolean,
  ): ReadResult;
  offsets(topic: string, partition: number): PartitionOffsets | undefined;
  /** The last stable offset (see ReadResult), kept in memory: no query. Undefined for an unknown partition. */
  lastStableOffset(topic: string, partition: number): number | undefined;
  /** Bytes of the partition's stored batches (DescribeLogDirs partition size); undefined if unknown. */
  partitionBytes(topic: string, partition: number): number | undefined;
  /** The first batch whose maxTimestamp >= timestampMs (ListOffsets by time), if any. */
  batchForTimestamp(topic: string, partition: number, timestampMs: number): StoredBatch | undefined;
  /** The batch holding the partition's largest timestamp (ListOffsets MAX_TIMESTAMP, KIP-734). */
  batchWithMaxTimestamp(topic: string, partition: number): StoredBatch | undefined;
  /**
   * DeleteRecords: deletes whole batches below `offset` (-1: the high watermark) and moves the log
   * start offset to it. OFFSET_OUT_OF_RANGE past the high watermark, UNKNOWN_TOPIC_OR_PARTITION.
   */
  deleteRecords(topic: string, partition: number, offset: number): DeleteRecordsResult;
}
