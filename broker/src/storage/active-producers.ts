// The producer state of a partition as Kafka's tools see it (DescribeProducers, key 61: Kafka's
// ProducerStateManager.activeProducers), and the rule for a marker an operator writes with
// WriteTxnMarkers (key 27: kafka-transactions abort, for a hanging transaction). Shared by every
// engine: each reads its producer_partition / open_txn rows and hands them here.
import { ErrorCode } from '../protocol/error-codes';
import type { ProducerPartitionState } from './producer-state';

/** One producer with state in a partition (DescribeProducersResponse.ProducerState, without the coordinator epoch). */
export interface ActiveProducer {
  producerId: number;
  producerEpoch: number;
  /** The last sequence of its newest batch; -1 when none is kept (a new epoch, after a fencing marker). */
  lastSequence: number;
  /** The max timestamp of its newest batch still stored; -1 when none. */
  lastTimestamp: number;
  /** The first offset of its open transaction here; -1 when none (Kafka's currentTxnFirstOffset). */
  currentTxnStartOffset: number;
}

/** What WriteTxnMarkers did to one partition. */
export interface TxnMarkerResult {
  errorCode: number;
  /** Why it was refused (the broker logs it; the response has no message field). */
  message: string | null;
  /** The marker's offset, -1 when none was written. */
  offset: number;
}

export function activeProducer(
  producerId: number,
  state: ProducerPartitionState,
  openTxnFirstOffset: number | undefined,
  newestBatchMaxTimestamp: number | undefined,
): ActiveProducer {
  const newest = state.batches[state.batches.length - 1];
  return {
    producerId,
    producerEpoch: state.producerEpoch,
    lastSequence: newest ? newest.lastSeq : -1,
    lastTimestamp: newest && newestBatchMaxTimestamp !== undefined ? newestBatchMaxTimestamp : -1,
    currentTxnStartOffset: openTxnFirstOffset ?? -1,
  };
}

/** The base offset of the producer's newest kept batch (whose max timestamp is lastTimestamp). */
export const newestBatchOffset = (state: ProducerPartitionState): number | undefined =>
  state.batches[state.batches.length - 1]?.baseOffset;

/**
 * Kafka's ProducerAppendInfo.appendEndTxnMarker: a marker older than the producer's epoch here is
 * refused (INVALID_PRODUCER_EPOCH); any other is written, whether or not a transaction is open
 * (then it ends nothing, as in Kafka). The coordinator epoch is not compared: minnow's one
 * coordinator never moves (its markers all carry 0, control-batch.ts).
 */
export function markerRefusal(
  state: ProducerPartitionState | undefined,
  producerId: number,
  producerEpoch: number,
): TxnMarkerResult | null {
  if (producerId < 0)
    return { errorCode: ErrorCode.INVALID_REQUEST, message: `producer id ${producerId} is not one`, offset: -1 };
  if (state && producerEpoch < state.producerEpoch) {
    return {
      errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
      message: `marker epoch ${producerEpoch} of producer ${producerId} is older than its epoch ${state.producerEpoch} here`,
      offset: -1,
    };
  }
  return null;
}

export const unknownPartitionMarker = (topic: string, partition: number): TxnMarkerResult => ({
  errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  message: `unknown topic or partition ${topic}-${partition}`,
  offset: -1,
});
