// The transaction coordinator (KIP-98) of this one node: each request's checks against the stored
// state, as Kafka's TransactionCoordinator.scala makes them (transaction version 1), then one
// Storage call that writes the step in one storage transaction. No Prepare* state is ever seen:
// EndTxn writes its markers and decision at once (docs/transactions.md), so CONCURRENT_TRANSACTIONS
// is never answered with a synchronous engine. The requests of one transactional id run one at a
// time (keyed-serial.ts: each check reads the stored state, awaits, then writes), as Kafka holds
// the transaction metadata's lock; several brokers on one database rely on the engine instead.
//
// Errors come back as Kafka error codes. PRODUCER_FENCED is returned as such; the handlers turn it
// into INVALID_PRODUCER_EPOCH for the request versions that predate it (fencedFor, KafkaApis).
import { offsetCommitError } from '../groups/consumer/consumer-admin';
import type { Logger } from '../logger';
import { ErrorCode } from '../protocol/error-codes';
import { StorageError } from '../storage/storage';
import { KeyedSerial } from '../keyed-serial';
import type { Storage, TransactionInfo, TxnPartition } from '../storage/storage';
import type { GroupRegistry } from '../groups/group-registry';
import { realTimers, TimerLike } from '../groups/timers';
import { CleanupTimer } from './timers';
import { runCleanupPass } from './cleanup-pass';
import { endTxnV1, endTxnV2 } from './end-txn-rules';
import { containsAll, producerError, sameProducer } from './txn-checks';
import { AddedPartitions } from './added-partitions';
import type { Recoveries } from './txn-checks';
import { validateTxnOffsetCommit, validateTxnOffsets } from './txn-offsets';
import type { OffsetToCommitInTxn, ProducerIdAndEpoch, TxnOffsetCommitInput } from './txn-offsets';

export type { ProducerIdAndEpoch } from './txn-offsets';
export { fencedFor } from './txn-checks';

/** Kafka's defaults (TransactionStateManagerConfig). */
export const DEFAULT_MAX_TIMEOUT_MS = 900_000;
export const DEFAULT_ID_EXPIRATION_MS = 604_800_000;
export const DEFAULT_CLEANUP_INTERVAL_MS = 10_000;

export interface TransactionCoordinatorOptions {
  storage: Storage;
  logger: Logger;
  now?: () => number;
  timers?: TimerLike;
  /** transaction.max.timeout.ms */
  maxTimeoutMs?: number;
  /** transactional.id.expiration.ms */
  idExpirationMs?: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  cleanupIntervalMs?: number;
  /** The group coordinator, for TxnOffsetCommit's generation/member checks (KIP-447). */
  groups?: GroupRegistry;
  /** Told of the partitions that got a marker: read_committed fetches waiting on them must wake. */
  onMarked?: (partitions: readonly TxnPartition[]) => void;
  /** Told of a storage failure before the request is answered COORDINATOR_NOT_AVAILABLE (disk full ...). */
  onStorageError?: (err: StorageError) => void;
  /**
   * Whether this broker coordinates a transactional id (several brokers on one database,
   * src/cluster): the timeout and expiry pass handles only those. Default: every id.
   */
  owns?: (transactionalId: string) => boolean;
}

export interface InitResult extends ProducerIdAndEpoch {
  errorCode: number;
}

/** A result without a producer id (Kafka's RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH). */
const noProducer = (errorCode: number): InitResult => ({ errorCode, producerId: -1, producerEpoch: -1 });

export class TransactionCoordinator {
  readonly storage: Storage;
  readonly logger: Logger;
  readonly now: () => number;
  readonly maxTimeoutMs: number;
  readonly idExpirationMs: number;
  private readonly groups: GroupRegistry | undefined;
  private readonly onMarked: (partitions: readonly TxnPartition[]) => void;
  private readonly onStorageError: (err: StorageError) => void;
  private readonly cleanup: CleanupTimer;
  private readonly owns: (transactionalId: string) => boolean;
  private closed = false;
  /** One request (or cleanup step) per transactional id at a time. */
  private readonly serial = new KeyedSerial<string>();
  /** Partitions known to be in each ongoing transaction: Produce v12's add skips storage for them. */
  private readonly added = new AddedPartitions();
  /**
   * The epoch bumps a producer may still recover from, by transactional id: a KIP-360 bump asked
   * for with the producer's current id/epoch (a retry whose answer was lost gets the same answer),
   * and a timeout abort's fencing bump (the timed-out producer's InitProducerId gets the new epoch),
   * as Kafka's lastProducerEpoch allows; any other InitProducerId ends it. Kept in memory only: after
   * a restart such a request is fenced, which is safe (never a second owner of an epoch).
   */
  private readonly recoveries: Recoveries = new Map();

  constructor(opts: TransactionCoordinatorOptions) {
    this.storage = opts.storage;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
    this.maxTimeoutMs = opts.maxTimeoutMs ?? DEFAULT_MAX_TIMEOUT_MS;
    this.idExpirationMs = opts.idExpirationMs ?? DEFAULT_ID_EXPIRATION_MS;
    this.groups = opts.groups;
    this.onMarked = opts.onMarked ?? (() => {});
    this.onStorageError = opts.onStorageError ?? (() => {});
    this.owns = opts.owns ?? (() => true);
    this.cleanup = new CleanupTimer(
      opts.timers ?? realTimers,
      opts.cleanupIntervalMs ?? DEFAULT_CLEANUP_INTERVAL_MS,
      async () => {
        // A timer's exception would end the process: log it, the next pass tries again.
        try {
          await this.runCleanup();
        } catch (err) {
          this.logger.error('transaction cleanup pass failed', { err });
        }
      },
    );
    this.cleanup.start();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Stops the timers (broker stop); later requests get NOT_COORDINATOR. */
  close(): void {
    this.closed = true;
    this.cleanup.stop();
  }

  /**
   * InitProducerId with a transactional id (TransactionCoordinator.handleInitProducerId): a new id
   * gets a producer id at epoch 0, a known one its epoch bumped, which fences the previous producer
   * and aborts its open transaction (Kafka answers CONCURRENT_TRANSACTIONS first and bumps again on
   * the retry; here the abort and the bump are one storage transaction). With `expected` (v3+,
   * KIP-360) only the current producer may bump; a retry of that bump, and a producer whose
   * transaction timed out, get the epoch already bumped for them (`recoveries`).
   */
  async initProducerId(
    transactionalId: string,
    timeoutMs: number,
    expected: ProducerIdAndEpoch | null,
  ): Promise<InitResult> {
    if (this.closed) return noProducer(ErrorCode.NOT_COORDINATOR);
    if (transactionalId === '') return noProducer(ErrorCode.INVALID_REQUEST);
    if (timeoutMs <= 0 || timeoutMs > this.maxTimeoutMs) return noProducer(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    return this.guard(transactionalId, noProducer, async () => {
      this.added.forget(transactionalId);
      const info = await this.storage.transaction(transactionalId);
      if (info && expected) {
        const retry = this.recoveries.get(transactionalId);
        if (
          retry &&
          info.state !== 'Ongoing' &&
          sameProducer(retry.from, expected) &&
          sameProducer(retry.to, { producerId: info.producerId, producerEpoch: info.producerEpoch })
        )
          return { errorCode: ErrorCode.NONE, ...retry.to };
        // isValidProducerId and prepareIncrementProducerEpoch: another producer id, or an epoch that
        // is not the current one, belongs to a fenced producer.
        if (expected.producerId !== info.producerId || expected.producerEpoch !== info.producerEpoch)
          return noProducer(ErrorCode.PRODUCER_FENCED);
      }
      const marked = info?.state === 'Ongoing' ? info.partitions : [];
      const next = await this.storage.initTransaction(transactionalId, timeoutMs, this.now());
      const answer = { producerId: next.producerId, producerEpoch: next.producerEpoch };
      if (info && expected) this.recoveries.set(transactionalId, { from: expected, to: answer });
      else this.recoveries.delete(transactionalId);
      if (marked.length > 0) {
        this.logger.info('transaction aborted: its transactional id was initialized again', {
          transactionalId,
          producerId: info!.producerId,
          producerEpoch: info!.producerEpoch,
        });
        this.onMarked(marked);
      }
      return { errorCode: ErrorCode.NONE, ...answer };
    });
  }

  /**
   * AddPartitionsToTxn (handleAddPartitionsToTransaction): the producer must be the transactional
   * id's current one; Empty and Complete* start a transaction, Ongoing extends it.
   */
  addPartitions(
    transactionalId: string,
    producer: ProducerIdAndEpoch,
    partitions: readonly TxnPartition[],
  ): Promise<number> {
    return this.add(transactionalId, producer, partitions, []);
  }

  /** AddOffsetsToTxn: as AddPartitionsToTxn, for the group's offsets (Kafka adds its __consumer_offsets partition). */
  addOffsets(transactionalId: string, producer: ProducerIdAndEpoch, groupId: string): Promise<number> {
    return this.add(transactionalId, producer, [], [groupId]);
  }

  private async add(
    transactionalId: string,
    producer: ProducerIdAndEpoch,
    partitions: readonly TxnPartition[],
    groups: readonly string[],
  ): Promise<number> {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (transactionalId === '') return ErrorCode.INVALID_REQUEST;
    if (groups.length === 0 && this.added.has(transactionalId, producer, partitions)) return ErrorCode.NONE;
    return this.guard(
      transactionalId,
      (e) => e,
      async () => {
        const info = await this.storage.transaction(transactionalId);
        const error = producerError(info, producer);
        if (error !== ErrorCode.NONE) return error;
        // Kafka's shortcut: nothing new for an ongoing transaction, nothing to write.
        const done =
          info!.state === 'Ongoing' && containsAll(info!, partitions, groups)
            ? info!
            : await this.storage.addToTransaction(transactionalId, partitions, groups, this.now());
        this.added.remember(transactionalId, producer, done.partitions);
        return ErrorCode.NONE;
      },
    );
  }

  /**
   * TxnOffsetCommit (the group coordinator's commitTransactionalOffset with KIP-890's check that
   * the group was added to the transaction, or its implicit add for v5+: `addsGroup`): one error
   * code per offset, in the order given.
   * `offsets` are those of known partitions (the handler answers unknown ones).
   */
  async commitOffsets(input: TxnOffsetCommitInput, offsets: readonly OffsetToCommitInTxn[]): Promise<number[]> {
    const all = (e: number) => offsets.map(() => e);
    if (this.closed) return all(ErrorCode.NOT_COORDINATOR);
    if (input.groupId === '') return all(ErrorCode.INVALID_GROUP_ID);
    return this.guard(input.transactionalId, all, async () => {
      const info = await this.storage.transaction(input.transactionalId);
      // AddPartitionsToTxnManager maps the verification's PRODUCER_FENCED to INVALID_PRODUCER_EPOCH,
      // and a group not in the transaction to INVALID_TXN_STATE (for clients before KIP-890 part 2).
      const error = producerError(info, input);
      if (error !== ErrorCode.NONE)
        return all(error === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : error);
      const added = info!.state === 'Ongoing' && info!.groups.includes(input.groupId);
      if (!added && !input.addsGroup) return all(ErrorCode.INVALID_TXN_STATE);
      if (!added) await this.storage.addToTransaction(input.transactionalId, [], [input.groupId], this.now());
      // A KIP-848 consumer group checks the member epoch (Kafka's ConsumerGroup.validateOffsetCommit).
      const consumerGroup = this.groups?.consumer.group(input.groupId);
      const groupError = consumerGroup
        ? offsetCommitError(consumerGroup, input.memberId, input.generationId, 9, true)
        : validateTxnOffsetCommit(this.groups?.group(input.groupId), input);
      if (groupError !== ErrorCode.NONE) return all(groupError);
      const { errors, valid } = validateTxnOffsets(offsets);
      if (valid.length > 0)
        await this.storage.commitTransactionalOffsets(input.transactionalId, input.groupId, valid, this.now());
      return errors;
    });
  }

  /**
   * EndTxn (handleEndTransaction, from the client): transaction version 0/1 for EndTxn v0-4, 2 for
   * v5+ (end-txn-rules.ts). The answer carries the producer id and epoch the producer goes on with:
   * with version 2 the epoch bumped by this end (a new producer id once it overflows).
   */
  async endTransaction(
    transactionalId: string,
    producer: ProducerIdAndEpoch,
    commit: boolean,
    transactionVersion = 1,
  ): Promise<InitResult> {
    if (this.closed) return noProducer(ErrorCode.NOT_COORDINATOR);
    if (transactionalId === '') return noProducer(ErrorCode.INVALID_REQUEST);
    return this.guard(transactionalId, noProducer, async () => {
      const info = await this.storage.transaction(transactionalId);
      const decision = transactionVersion >= 2 ? endTxnV2(info, producer, commit) : endTxnV1(info, producer, commit);
      switch (decision.kind) {
        case 'error':
          return noProducer(decision.errorCode);
        case 'done':
          return { errorCode: ErrorCode.NONE, producerId: info!.producerId, producerEpoch: info!.producerEpoch };
        case 'end': {
          this.added.forget(transactionalId);
          const { info: done, markedPartitions } = await this.storage.endTransaction(
            transactionalId,
            decision.commit,
            this.now(),
            decision.bump,
          );
          this.onMarked(markedPartitions);
          return { errorCode: ErrorCode.NONE, producerId: done.producerId, producerEpoch: done.producerEpoch };
        }
      }
    });
  }

  /** DescribeTransactions: the stored state, undefined for an unknown id (TRANSACTIONAL_ID_NOT_FOUND). */
  describe(transactionalId: string): Promise<TransactionInfo | undefined> {
    return this.storage.transaction(transactionalId);
  }

  /** Every transactional id (ListTransactions filters them). */
  list(): Promise<TransactionInfo[]> {
    return this.storage.transactions();
  }

  /** One pass of the timeout and expiration task (cleanup-pass.ts). */
  runCleanup(): Promise<{ aborted: string[]; expired: string[] }> {
    return runCleanupPass({
      storage: this.storage,
      logger: this.logger,
      now: () => this.now(),
      idExpirationMs: this.idExpirationMs,
      isClosed: () => this.closed,
      serial: this.serial,
      recoveries: this.recoveries,
      added: this.added,
      owns: (transactionalId) => this.owns(transactionalId),
      onMarked: (partitions) => this.onMarked(partitions),
      onStorageError: (err) => this.onStorageError(err),
    });
  }

  /** Runs a step; a storage failure is COORDINATOR_NOT_AVAILABLE (retriable: the step was rolled back). */
  private guard<T>(transactionalId: string, fail: (errorCode: number) => T, step: () => Promise<T>): Promise<T> {
    return this.serial.run(transactionalId, async () => {
      // Closed while this request waited for its turn (broker stop).
      if (this.closed) return fail(ErrorCode.NOT_COORDINATOR);
      try {
        return await step();
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        this.onStorageError(err);
        if (!err.diskFull) this.logger.error('transaction step failed', { err });
        return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
    });
  }
}
