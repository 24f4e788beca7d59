// Idempotent producer bookkeeping (KIP-98, KIP-360), shared by every engine: per producer and
// partition the epoch and the last 5 appended batches, enough to answer a retried duplicate with
// its original offset and to reject gaps. Engines persist the state in the same transaction as
// the batches it describes.
import { ErrorCode } from '../protocol/error-codes';
import type { RecordBatchHeader } from '../protocol/record-batch';

/** Kafka keeps the metadata of this many batches per producer and partition (max.in.flight = 5). */
export const RECENT_BATCHES = 5;

export interface ProducerBatchEntry {
  firstSeq: number;
  lastSeq: number;
  baseOffset: number;
}

export interface ProducerPartitionState {
  producerEpoch: number;
  /** Oldest first, at most RECENT_BATCHES. */
  batches: ProducerBatchEntry[];
}

export type SequenceCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; baseOffset: number }
  | { kind: 'error'; errorCode: number; message: string };

const INT32_MAX = 0x7fffffff;
/** Sequences wrap from Int32.MAX to 0. */
const nextSeq = (seq: number) => (seq === INT32_MAX ? 0 : seq + 1);
export const lastSequence = (h: RecordBatchHeader) => {
  const last = h.baseSequence + h.lastOffsetDelta;
  return last > INT32_MAX ? last - INT32_MAX - 1 : last;
};

export function checkSequence(state: ProducerPartitionState | undefined, h: RecordBatchHeader): SequenceCheck {
  if (state === undefined) return { kind: 'append' }; // unknown producer here: accept its first batch (KIP-360)
  if (h.producerEpoch < state.producerEpoch) {
    return {
      kind: 'error',
      errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
      message: `producer ${h.producerId} epoch ${h.producerEpoch} is older than the current epoch ${state.producerEpoch}`,
    };
  }
  if (h.producerEpoch > state.producerEpoch) {
    if (h.baseSequence === 0) return { kind: 'append' };
    return {
      kind: 'error',
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      message: `producer ${h.producerId} started epoch ${h.producerEpoch} at sequence ${h.baseSequence}, expected 0`,
    };
  }
  const last = lastSequence(h);
  const dup = state.batches.find((b) => b.firstSeq === h.baseSequence && b.lastSeq === last);
  if (dup) return { kind: 'duplicate', baseOffset: dup.baseOffset };
  const newest = state.batches[state.batches.length - 1];
  const expected = newest ? nextSeq(newest.lastSeq) : 0;
  if (newest && h.baseSequence !== expected) {
    return {
      kind: 'error',
      errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      message: `producer ${h.producerId} sent sequence ${h.baseSequence}, expected ${expected}`,
    };
  }
  return { kind: 'append' };
}

/** The state after appending batch `h` at `baseOffset` (a new object; the input is not changed). */
export function afterAppend(
  state: ProducerPartitionState | undefined,
  h: RecordBatchHeader,
  baseOffset: number,
): ProducerPartitionState {
  const keep = state && state.producerEpoch === h.producerEpoch ? state.batches : [];
  const batches = [...keep, { firstSeq: h.baseSequence, lastSeq: lastSequence(h), baseOffset }];
  return { producerEpoch: h.producerEpoch, batches: batches.slice(-RECENT_BATCHES) };
}
