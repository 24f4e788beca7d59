// The one storage interface every engine implements (sqlite://, memory://, postgres://).
// The server uses `AsyncStorage` (every call returns a Promise: a network database cannot answer
// synchronously, issue 18 / docs/postgres.md). The in-process engines implement `SyncStorage`, the
// same calls answered synchronously, and are handed to the server through `promised()`
// (sync-adapter.ts): their promise is already settled when returned, so the SQLite path keeps its
// group commit and pays a microtask per call. Waiting (fetch max_wait, group commit) belongs to
// the server. Kafka outcomes come back as error codes; engines throw only StorageError (I/O, corruption).
// Offsets and timestamps are JS numbers here (exact up to 2^53); the protocol layer uses bigint.
import type { ActiveProducer, TxnMarkerResult } from './active-producers';
import type { AclBinding } from '../protocol/acl';
import type { RecordBatchHeader } from '../protocol/record-batch';
import type { ScramCredential, ScramMechanismName } from '../sasl/scram-crypto';
import type { CleanerOptions, CleanerState, CompactionStepResult } from './compaction/cleaner-types';

import type { StoredGroup } from './group-metadata';
export type { StoredGroup, StoredGroupMember } from './group-metadata';
export type { CleanerOptions, CleanerState, CompactionStepResult } from './compaction/cleaner-types';

export interface TopicInfo {
  name: string;
  /** Kafka's base64url form, stable for the topic's life. */
  topicId: string;
  partitionCount: number;
  /** Only the configs set on the topic (defaults are applied by topic-config.ts). */
  configs: Record<string, string>;
}

/** A topic to create (createTopics). */
export interface NewTopic {
  name: string;
  partitionCount: number;
  configs: Record<string, string>;
  topicId?: string;
}

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

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  commitTimestampMs: number;
}

export interface RetentionDefaults {
  retentionMs: number;
  retentionBytes: number;
  /** log.cleanup.policy: topics without an override whose policy lacks delete keep their data. */
  cleanupPolicy?: string;
}

export interface RetentionResult {
  deletedBatches: number;
  deletedBytes: number;
  /**
   * With a window: the last partition the call finished when partitions remain after it (the next
   * call's `window.after`); absent once the sweep has passed the last partition.
   */
  resumeAfter?: RetentionCursor;
}

/** A place in retention's sweep, which visits partitions in (topic name, partition) order. */
export interface RetentionCursor {
  topic: string;
  partition: number;
}

/** Before the first partition (topic names are never empty). */
export const RETENTION_SWEEP_START: RetentionCursor = { topic: '', partition: -1 };

/**
 * The partitions one retention call visits: those after `after`, at most `maxPartitions`, so a
 * sweep over thousands of partitions goes in short steps instead of one long transaction (issue 29).
 */
export interface RetentionWindow {
  after: RetentionCursor;
  maxPartitions: number;
}

/**
 * A client quota entity (KIP-546): entity type ("user", "client-id", "ip") to its name, null for
 * the type's default entity (`--entity-default`). Storage keeps what it is given; the quota module
 * (server/quotas) validates entities and keys as Kafka does.
 */
export type ClientQuotaEntity = Readonly<Record<string, string | null>>;

export interface ClientQuotaEntry {
  entity: ClientQuotaEntity;
  /** Quota key (producer_byte_rate ...) to its value. Never empty: an entity with none is gone. */
  values: Record<string, number>;
}

/** One entity's change in an AlterClientQuotas: keys to set and keys to remove. */
export interface ClientQuotaChange {
  entity: ClientQuotaEntity;
  set: Record<string, number>;
  remove: readonly string[];
}

/** A user's SCRAM credential for one mechanism (salt, iterations, StoredKey, ServerKey; never a password). */
export interface UserScramCredential extends ScramCredential {
  user: string;
  mechanism: ScramMechanismName;
}

/** What DescribeUserScramCredentials and `minnow user list` show: no keys, no salt. */
export interface UserScramCredentialInfo {
  user: string;
  mechanism: ScramMechanismName;
  iterations: number;
}

/**
 * The states a transactional id is stored in (Kafka's TransactionState). PrepareCommit and
 * PrepareAbort are never stored: EndTxn writes its markers and the decision in one storage
 * transaction (docs/transactions.md). Expired ids are deleted, not kept as Dead.
 */
export type TransactionState = 'Empty' | 'Ongoing' | 'CompleteCommit' | 'CompleteAbort';

export interface TxnPartition {
  topic: string;
  partition: number;
}

/** A transactional id's coordinator state (Kafka's TransactionMetadata). */
export interface TransactionInfo {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /**
   * The producer id and epoch before the last bump (-1 when none): lets InitProducerId v3+
   * (KIP-360) and a retried EndTxn after a timeout abort be recognised, as Kafka's
   * lastProducerId/lastProducerEpoch do.
   */
  lastProducerId: number;
  lastProducerEpoch: number;
  state: TransactionState;
  /** transaction.timeout.ms the producer asked for (already checked against the broker's maximum). */
  timeoutMs: number;
  /**
   * When the last transaction began (its first AddPartitionsToTxn or AddOffsetsToTxn); kept through
   * CompleteCommit / CompleteAbort as Kafka's txnStartTimestamp is; -1 after InitProducerId.
   */
  startedMs: number;
  /** The last change of state. */
  updatedMs: number;
  /** Partitions added to the ongoing transaction, sorted by topic then partition; empty outside one. */
  partitions: TxnPartition[];
  /** Groups added with AddOffsetsToTxn, sorted; empty outside one. */
  groups: string[];
}

/** What endTransaction did: the id's new state and the partitions that got a marker (fetches to wake). */
export interface EndTransactionResult {
  info: TransactionInfo;
  markedPartitions: TxnPartition[];
}

export interface ClusterIdentity {
  clusterId: string;
  nodeId: number;
}

export interface SyncStorage {
  readonly url: string;

  /** Stored on first open so clients keep working after restarts and moves; `wanted` applies only then. */
  identity(wanted: Partial<ClusterIdentity>): ClusterIdentity;

  // Topics
  /** Sorted by name. */
  listTopics(): TopicInfo[];
  /** Partitions of all topics together, without listing them (the MINNOW_MAX_PARTITIONS bound). */
  totalPartitions(): number;
  topic(name: string): TopicInfo | undefined;
  topicById(topicId: string): TopicInfo | undefined;
  /** Costs O(its partitions), whatever the number of topics (no catalog reload). */
  createTopic(name: string, partitionCount: number, configs: Record<string, string>, topicId?: string): TopicInfo;
  /** Deletes the topic, its batches, producer state and committed offsets. False if it did not exist. */
  deleteTopic(name: string): boolean;
  /**
   * createTopic for each, answered each on its own (its TopicInfo, or the StorageError createTopic
   * would throw), in as few transactions as the engine can (SQLite: one, a savepoint per topic).
   * Throws only if no topic could be stored (SQLite: the commit failed). CreateTopics' slices.
   */
  createTopics(topics: readonly NewTopic[]): (TopicInfo | StorageError)[];
  /** deleteTopic for each name, answered each on its own, as createTopics. DeleteTopics' slices. */
  deleteTopics(names: readonly string[]): (boolean | StorageError)[];
  /** Grows the topic to `partitionCount` partitions. */
  createPartitions(name: string, partitionCount: number): void;
  /** Sets and removes topic config overrides. */
  alterTopicConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void;

  // Dynamic broker configs (KIP-226): `resource` is a node id, or '' for the cluster-wide default.
  /** The configs set on `resource` (a copy; empty when none). */
  brokerConfigs(resource: string): Record<string, string>;
  /** Sets and removes dynamic broker configs of `resource`, in one transaction. */
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): void;

  // Client quotas (KIP-546: DescribeClientQuotas / AlterClientQuotas)
  /** Every entity with at least one quota, in no particular order. */
  clientQuotas(): ClientQuotaEntry[];
  /** Applies all changes in one transaction (all or none). */
  alterClientQuotas(changes: readonly ClientQuotaChange[]): void;
  // SASL/SCRAM users (Kafka keeps them in its metadata log; here they live in the database)
  /** The stored credential of `user` for `mechanism`, if any. */
  scramCredential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined;
  /** Every stored credential's user, mechanism and iterations, sorted by user then mechanism. */
  scramCredentials(): UserScramCredentialInfo[];
  /** Upserts and deletes credentials in one transaction (callers validate first, as Kafka's controller does). */
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void;

  // Records
  /** Appends every partition's batches in one transaction; returns once it committed. */
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
  /**
   * Deletes batches past retention.ms / retention.bytes, at most `maxBatches` per call, in the
   * partitions of `window` (default: all of them).
   */
  enforceRetention(
    nowMs: number,
    defaults: RetentionDefaults,
    maxBatches: number,
    window?: RetentionWindow,
  ): RetentionResult;

  // Compaction (issue 17, docs/compaction.md; the shared logic is compaction/cleaner.ts). Topics
  // whose cleanup.policy holds compact are cleaned by the engine, one bounded step per call: the
  // server calls compactStep every LOG_CLEANER_BACKOFF_MS, and again (after yielding to the event
  // loop) while it answers working. Offsets never change: a cleaned batch keeps its base and last
  // offset and producer fields; batches emptied go unless they are their producer's newest.
  // Tombstones and markers are kept delete.retention.ms from the first pass that sees them.
  /**
   * One step: choose the dirtiest compacted partition (dirty ratio above min.cleanable.dirty.ratio,
   * or past max.compaction.lag.ms), or map a slice of its dirty range, or filter a slice of its log
   * (one short write transaction). `working: false`: nothing to clean now. `passDone` reports the
   * pass that ended in this step (after its clean offset was checkpointed and pages reclaimed).
   * A Promise in every engine (the shared Cleaner awaits its log, which may be a network database).
   */
  compactStep(nowMs: number, opts?: CleanerOptions): Promise<CompactionStepResult>;
  /**
   * For reporting (`minnow topic describe`): the partition's clean offset, first uncleanable offset,
   * dirty ratio now, and the last pass's time and bytes before/after. Undefined if unknown.
   */
  cleanerState(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): CleanerState | undefined;

  // Idempotent producers
  /**
   * A new producer id at epoch 0; with a transactional id, initTransaction's id and epoch (its
   * stored timeout kept, else the producers' default 60000).
   */
  initProducerId(transactionalId: string | null, nowMs: number): { producerId: number; producerEpoch: number };

  /**
   * DescribeProducers (kafka-transactions describe-producers / find-hanging): every producer with
   * state in the partition, by producer id; undefined for an unknown partition (active-producers.ts).
   */
  activeProducers(topic: string, partition: number): ActiveProducer[] | undefined;
  /**
   * WriteTxnMarkers (kafka-transactions abort): a COMMIT/ABORT marker for the producer at the
   * partition's high watermark in one transaction, ending its open transaction there (an abort
   * records the aborted range), as endTransaction does for one partition; refused for an epoch
   * older than the producer's here (active-producers.ts markerRefusal). The coordinator's own state
   * of any transactional id is left alone, as Kafka's is.
   */
  writeTxnMarker(
    topic: string,
    partition: number,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
    nowMs: number,
  ): TxnMarkerResult;

  // Transactions (KIP-98; docs/transactions.md). The coordinator (src/transactions) checks each
  // request against the stored state, as Kafka's TransactionCoordinator does; the engine stores
  // each step in one transaction. Transactional batches are checked by append itself (the producer's
  // epoch, and KIP-890 part 1: the partition must have been added), inside the write transaction:
  // the partition's result is INVALID_TXN_STATE (no ongoing transaction of that producer id, or the
  // partition not added; also a plain batch of a producer whose transaction is open there) or
  // INVALID_PRODUCER_EPOCH (any epoch other than the transaction's: the handler maps it to
  // PRODUCER_FENCED where the request version wants that), then the usual sequence checks.
  /** Every transactional id's state, sorted by id (the coordinator's timers come back from it). */
  transactions(): TransactionInfo[];
  transaction(transactionalId: string): TransactionInfo | undefined;
  /**
   * InitProducerId with a transactional id: creates it (a new producer id, epoch 0) or bumps its
   * epoch (a new producer id, epoch 0, once the epoch would reach 32767), remembering the previous
   * id/epoch as last*. An ongoing transaction is aborted first, as endTransaction(abort) with the
   * new epoch, in the same storage transaction (with a new producer id, the markers carry the old
   * id and its epoch + 1). The state becomes Empty with `timeoutMs`. Producer ids come from the
   * same allocator as idempotent producers'.
   */
  initTransaction(transactionalId: string, timeoutMs: number, nowMs: number): TransactionInfo;
  /**
   * AddPartitionsToTxn / AddOffsetsToTxn: the state becomes Ongoing (startedMs = nowMs if it was
   * not), the partitions and groups are added to those already there. Unknown partitions are the
   * caller's to refuse (the engine throws StorageError for one). Every call below except
   * initTransaction throws StorageError for an unknown transactional id: the coordinator checks first.
   */
  addToTransaction(
    transactionalId: string,
    partitions: readonly TxnPartition[],
    groups: readonly string[],
    nowMs: number,
  ): TransactionInfo;
  /**
   * TxnOffsetCommit: offsets pending in the transaction (replacing ones pending for the same group
   * and partition); fetchOffsets shows them only after endTransaction commits.
   */
  commitTransactionalOffsets(
    transactionalId: string,
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): void;
  /**
   * EndTxn, or the broker's abort (timeout, fencing), all in one storage transaction: with
   * `bumpEpoch` the epoch is bumped first (last* remember the old one); a control batch (COMMIT or
   * ABORT; producer id and the current epoch) appended to every partition of the transaction; on
   * commit the pending offsets become the groups' committed offsets, on abort they are dropped and
   * each partition the transaction wrote to records its aborted range; the partitions' open
   * transaction ends (the last stable offset moves); the state becomes CompleteCommit or
   * CompleteAbort with no partitions or groups. A partition added but never written gets its
   * marker too (as Kafka's); a partition of a topic deleted meanwhile has left the transaction.
   * With `bumpEpoch` the epoch goes up to 32767 at most (Kafka's prepareFenceProducerEpoch).
   */
  endTransaction(transactionalId: string, commit: boolean, nowMs: number, bumpEpoch?: boolean): EndTransactionResult;
  /** Partitions of `groupId` with a transactional offset pending (OffsetFetch require_stable, KIP-447). */
  pendingTransactionalOffsets(groupId: string): TxnPartition[];
  /** Forgets a transactional id (transactional.id.expiration.ms); refused (false) while Ongoing. */
  deleteTransaction(transactionalId: string): boolean;

  // Consumer group offsets
  commitOffsets(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void;
  fetchOffsets(groupId: string): CommittedOffset[];
  /** Deletes the given partitions' offsets, or all of the group's when `partitions` is undefined. */
  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void;
  /** Groups that have committed offsets. */
  offsetGroups(): string[];
  /** Replaces the group's stored membership in one transaction (group-metadata.ts); null deletes it. */
  storeGroupMetadata(groupId: string, group: StoredGroup | null): void;
  /** The group's stored membership, members in join order. */
  groupMetadata(groupId: string): StoredGroup | undefined;

  // ACLs (Kafka's AclBinding, protocol/acl.ts). The authorizer caches them; all changes go
  // through these calls.
  /** Every stored binding, in no particular order. */
  listAcls(): AclBinding[];
  /** Stores the bindings not stored yet, in one transaction (an existing one is no error, as in Kafka). */
  createAcls(bindings: readonly AclBinding[]): void;
  /** Deletes these exact bindings in one transaction; returns how many were stored. */
  deleteAcls(bindings: readonly AclBinding[]): number;

  /** A consistent copy of the whole state into a new file (refused if it exists), while serving. */
  backup(destPath: string): Promise<void>;
  close(): void;
}

/** `T`'s methods, each returning a Promise of what it returned (a Promise stays one Promise). */
export type Promised<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

/** The interface the server, coordinators and tools use; postgres:// implements it directly. */
export type AsyncStorage = Promised<SyncStorage>;

/** What the broker, coordinators and tools hold (issue 18): every call awaited. */
export type Storage = AsyncStorage;

export class StorageError extends Error {
  override readonly name = 'StorageError';
  /** The engine's error code when it has one (SQLite: SQLITE_FULL, SQLITE_IOERR_WRITE ...). */
  readonly code: string | undefined;

  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options);
    this.code = options?.code;
  }

  /** The file system is full: the write failed for want of space, nothing else is wrong. */
  get diskFull(): boolean {
    return this.code === 'SQLITE_FULL';
  }
}
