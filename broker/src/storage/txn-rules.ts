// Transaction rules every engine applies the same way (KIP-98, KIP-890 part 1): the check of a
// produced batch against its producer's transaction, the last stable offset, the aborted ranges a
// read_committed fetch gets, and how InitProducerId moves a transactional id's producer id/epoch.
import { ErrorCode } from '../protocol/error-codes';
import { isTransactional } from '../protocol/record-batch';
import type { RecordBatchHeader } from '../protocol/record-batch';
import { bumpedEpoch, MAX_PRODUCER_EPOCH } from './log-rules';
import type { ProducerPartitionState } from './producer-state';
import type { AbortedTransaction, EpochBump, TransactionState, TxnPartition } from './storage';

/** What the append check needs of the transaction a producer id belongs to. */
export interface ProducerTxn {
  producerEpoch: number;
  state: TransactionState;
  /** Whether this partition was added to the transaction (AddPartitionsToTxn). */
  partitionAdded: boolean;
}

export type TxnCheck = { errorCode: number; message: string } | null;

/**
 * Checks one batch of a producer (producerId >= 0) before its sequence is: a transactional batch
 * needs the producer's transaction ongoing, at its current epoch, with this partition added
 * (KIP-890 part 1, Kafka's verification); a plain batch may not interleave with the producer's
 * ongoing transaction in the partition (ProducerAppendInfo: "Expected transactional write").
 * `txn` is only called for transactional batches; `openHere`: the producer has an open
 * transaction in this partition.
 */
export function checkTxnBatch(
  header: RecordBatchHeader,
  txn: () => ProducerTxn | undefined,
  openHere: boolean,
): TxnCheck {
  const producerId = Number(header.producerId);
  if (!isTransactional(header.attributes)) {
    if (!openHere) return null;
    return {
      errorCode: ErrorCode.INVALID_TXN_STATE,
      message: `producer ${producerId} sent a non-transactional batch while its transaction is ongoing in the partition`,
    };
  }
  const t = txn();
  if (!t)
    return {
      errorCode: ErrorCode.INVALID_TXN_STATE,
      message: `producer ${producerId} has no transaction: call initTransactions and add the partition first`,
    };
  if (header.producerEpoch !== t.producerEpoch) {
    const older = header.producerEpoch < t.producerEpoch;
    return {
      errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
      message: `producer ${producerId} epoch ${header.producerEpoch} is ${older ? 'older' : 'newer'} than the transaction's ${t.producerEpoch}${older ? ': fenced by a newer instance' : ''}`,
    };
  }
  if (t.state !== 'Ongoing')
    return {
      errorCode: ErrorCode.INVALID_TXN_STATE,
      message: `producer ${producerId} has no ongoing transaction (state ${t.state}): the partition was not added to the transaction`,
    };
  if (!t.partitionAdded)
    return {
      errorCode: ErrorCode.INVALID_TXN_STATE,
      message: `producer ${producerId}: the partition was not added to the transaction (KIP-890)`,
    };
  return null;
}

/**
 * The last stable offset: the first offset of the partition's oldest open transaction, else the
 * high watermark; never below the log start offset (Kafka's firstUnstableOffset).
 */
export function lastStableOffset(
  openFirstOffsets: Iterable<number>,
  highWatermark: number,
  logStartOffset: number,
): number {
  let lso = highWatermark;
  for (const first of openFirstOffsets) if (first < lso) lso = first;
  return Math.max(lso, logStartOffset);
}

/**
 * Kafka's collectAbortedTransactions: the aborted ranges that end at or after the fetch offset and
 * begin at or before the last offset returned, ordered by first offset.
 */
export function overlappingAborted(
  aborted: Iterable<AbortedTransaction>,
  fetchOffset: number,
  lastReturnedOffset: number,
): AbortedTransaction[] {
  const out: AbortedTransaction[] = [];
  for (const a of aborted) {
    if (a.lastOffset >= fetchOffset && a.firstOffset <= lastReturnedOffset) out.push({ ...a });
  }
  return out.sort((a, b) => a.firstOffset - b.firstOffset || a.lastOffset - b.lastOffset);
}

/** The epoch a fencing abort (timeout, InitProducerId during a transaction) writes its markers with. */
export function fencedEpoch(epoch: number): number {
  return Math.min(epoch + 1, MAX_PRODUCER_EPOCH);
}

/**
 * endTransaction's epoch (EpochBump): the epoch its markers carry, and whether the id moves on to a
 * new producer id (at epoch 0) after them: transaction version 2 once the epoch reaches 32767
 * (TransactionMetadata.isProducerEpochExhausted before the bump: 32766 or more).
 */
export function endTxnEpoch(epoch: number, bump: EpochBump): { markerEpoch: number; newProducerId: boolean } {
  if (bump === 'none') return { markerEpoch: epoch, newProducerId: false };
  const markerEpoch = fencedEpoch(epoch);
  return { markerEpoch, newProducerId: bump === 'next' && markerEpoch === MAX_PRODUCER_EPOCH };
}

export interface TxnProducerChange {
  producerId: number;
  producerEpoch: number;
  lastProducerId: number;
  lastProducerEpoch: number;
  /** Whether a new producer id must be allocated (then producerId is -1 here). */
  newProducerId: boolean;
}

/**
 * InitProducerId for a transactional id: epoch + 1, or a new producer id at epoch 0 once the epoch
 * would reach Short.MAX_VALUE (TransactionMetadata.isProducerEpochExhausted). `current` undefined:
 * a new transactional id.
 */
export function initTxnProducer(current: { producerId: number; producerEpoch: number } | undefined): TxnProducerChange {
  if (!current)
    return { producerId: -1, producerEpoch: 0, lastProducerId: -1, lastProducerEpoch: -1, newProducerId: true };
  const epoch = bumpedEpoch(current.producerEpoch);
  const last = { lastProducerId: current.producerId, lastProducerEpoch: current.producerEpoch };
  return epoch === null
    ? { producerId: -1, producerEpoch: 0, ...last, newProducerId: true }
    : { producerId: current.producerId, producerEpoch: epoch, ...last, newProducerId: false };
}

/** Sorted by topic, then partition (TransactionInfo.partitions' order). */
export function sortTxnPartitions(list: TxnPartition[]): TxnPartition[] {
  return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

/** Default transaction.timeout.ms of the producers (for InitProducerId calls that give none). */
export const DEFAULT_TXN_TIMEOUT_MS = 60000;

/**
 * A producer's state in a partition after its transaction's marker (ProducerAppendInfo's
 * appendEndTxnMarker): a marker with a newer epoch (a fencing abort) moves the partition to it and
 * forgets the old epoch's batches, so the fenced producer's plain batches are refused there too.
 * Undefined: nothing to store.
 */
export function stateAfterMarker(
  state: ProducerPartitionState | undefined,
  markerEpoch: number,
): ProducerPartitionState | undefined {
  if (!state || state.producerEpoch >= markerEpoch) return undefined;
  return { producerEpoch: markerEpoch, batches: [] };
}
