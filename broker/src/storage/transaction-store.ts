// The producers' part of the Storage interface (storage.ts composes it): producer ids for
// idempotence, the partitions' producer state and markers, and the transaction coordinator's state
// (KIP-98; docs/transactions.md).
import type { ActiveProducer, TxnMarkerResult } from './active-producers';
import type { CommittedOffset } from './group-store';

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

/**
 * How endTransaction moves the producer epoch before its markers. 'none': EndTxn of transaction
 * version 0/1. 'fence': the broker's abort of a timed-out transaction, epoch + 1 (32767 at most,
 * Kafka's prepareFenceProducerEpoch), so the producer is fenced. 'next': EndTxn of transaction
 * version 2 (KIP-890 part 2), epoch + 1 at every transaction end; the markers carry it, and once it
 * reaches 32767 the id moves on to a new producer id at epoch 0 after them (Kafka's
 * prepareAbortOrCommit / prepareComplete with a nextProducerId).
 */
export type EpochBump = 'none' | 'fence' | 'next';

/** What endTransaction did: the id's new state and the partitions that got a marker (fetches to wake). */
export interface EndTransactionResult {
  info: TransactionInfo;
  markedPartitions: TxnPartition[];
}

export interface ProducerStore {
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
}

/**
 * Transactions (KIP-98; docs/transactions.md). The coordinator (src/transactions) checks each
 * request against the stored state, as Kafka's TransactionCoordinator does; the engine stores
 * each step in one transaction. Transactional batches are checked by append itself (the producer's
 * epoch, and KIP-890 part 1: the partition must have been added), inside the write transaction:
 * the partition's result is INVALID_TXN_STATE (no ongoing transaction of that producer id, or the
 * partition not added; also a plain batch of a producer whose transaction is open there) or
 * INVALID_PRODUCER_EPOCH (any epoch other than the transaction's: the handler maps it to
 * PRODUCER_FENCED where the request version wants that), then the usual sequence checks.
 */
export interface TransactionStore {
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
   * EndTxn, or the broker's abort (timeout, fencing), all in one storage transaction: with a `bump`
   * the epoch is bumped first (last* remember the old id and epoch, EpochBump); a control batch (COMMIT or
   * ABORT; producer id and the current epoch) appended to every partition of the transaction; on
   * commit the pending offsets become the groups' committed offsets, on abort they are dropped and
   * each partition the transaction wrote to records its aborted range; the partitions' open
   * transaction ends (the last stable offset moves); the state becomes CompleteCommit or
   * CompleteAbort with no partitions or groups. A partition added but never written gets its
   * marker too (as Kafka's); a partition of a topic deleted meanwhile has left the transaction.
   */
  endTransaction(transactionalId: string, commit: boolean, nowMs: number, bump?: EpochBump): EndTransactionResult;
  /** Partitions of `groupId` with a transactional offset pending (OffsetFetch require_stable, KIP-447). */
  pendingTransactionalOffsets(groupId: string): TxnPartition[];
  /** Forgets a transactional id (transactional.id.expiration.ms); refused (false) while Ongoing. */
  deleteTransaction(transactionalId: string): boolean;
}
