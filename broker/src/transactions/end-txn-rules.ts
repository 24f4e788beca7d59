// What an EndTxn does to a transactional id's stored state, as Kafka 4's TransactionCoordinator
// decides it before writing anything: endTransactionWithTV1 for EndTxn v0-4, endTransaction (with
// its table of retries) for v5+, transaction version 2 (KIP-890 part 2: every transaction end bumps
// the epoch, the markers carry the new one and EndTxn answers it). A pure function, so the
// coordinator's step stays one read and one Storage call.
import { ErrorCode } from '../protocol/error-codes';
import { MAX_PRODUCER_EPOCH } from '../storage/log-rules';
import type { EpochBump, TransactionInfo } from '../storage/storage';
import type { ProducerIdAndEpoch } from './txn-offsets';

export type EndTxnDecision =
  /** Refused: the answer carries no producer id (-1/-1). */
  | { kind: 'error'; errorCode: number }
  /** A retry of the decision already taken: NONE with the current producer id and epoch. */
  | { kind: 'done' }
  /** Write the markers and the decision (storage.endTransaction). */
  | { kind: 'end'; commit: boolean; bump: EpochBump };

const refuse = (errorCode: number): EndTxnDecision => ({ kind: 'error', errorCode });

/**
 * EndTxn v0-4 (transaction version 0/1): the current producer commits or aborts its ongoing
 * transaction; a retry of the decision already taken is answered NONE, the opposite one and an
 * Empty id INVALID_TXN_STATE. The epoch does not move.
 */
export function endTxnV1(
  info: TransactionInfo | undefined,
  producer: ProducerIdAndEpoch,
  commit: boolean,
): EndTxnDecision {
  if (!info || info.producerId !== producer.producerId) return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (info.producerEpoch !== producer.producerEpoch) return refuse(ErrorCode.PRODUCER_FENCED);
  switch (info.state) {
    case 'Ongoing':
      return { kind: 'end', commit, bump: 'none' };
    case 'CompleteCommit':
      return commit ? { kind: 'done' } : refuse(ErrorCode.INVALID_TXN_STATE);
    case 'CompleteAbort':
      return commit ? refuse(ErrorCode.INVALID_TXN_STATE) : { kind: 'done' };
    case 'Empty':
      return refuse(ErrorCode.INVALID_TXN_STATE);
  }
}

/**
 * EndTxn v5+ (transaction version 2). The epoch the request carries says what it is: the current
 * one is this transaction's end (or an abort with nothing added, which a producer recovering from
 * an abortable error sends), the one before it a retry of the end that bumped it (after an epoch
 * overflow: the previous producer id at 32766 while the new one is at 0). Kafka's table
 * (PF = PRODUCER_FENCED, ITS = INVALID_TXN_STATE, EB = end with an epoch bump):
 *
 *                   Abort            Commit
 *                   retry  current   retry  current
 *   Empty           PF     EB        PF     ITS
 *   CompleteAbort   NONE   EB        ITS    ITS
 *   CompleteCommit  ITS    EB        NONE   ITS
 *   Ongoing         PF     EB        PF     EB
 */
export function endTxnV2(
  info: TransactionInfo | undefined,
  producer: ProducerIdAndEpoch,
  commit: boolean,
): EndTxnDecision {
  if (!info) return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  const retryOnOverflow =
    info.lastProducerId === producer.producerId &&
    producer.producerEpoch === MAX_PRODUCER_EPOCH - 1 &&
    info.producerEpoch === 0;
  const retryOnEpochBump = info.producerId === producer.producerId && info.producerEpoch === producer.producerEpoch + 1;
  if (info.producerId !== producer.producerId && !retryOnOverflow) return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  const current = info.producerEpoch === producer.producerEpoch;
  const retry = retryOnEpochBump || retryOnOverflow;
  const ended = info.state === 'CompleteCommit' || info.state === 'CompleteAbort';
  if (!(current || (ended && retry))) return refuse(ErrorCode.PRODUCER_FENCED);
  const abortNothing: EndTxnDecision = { kind: 'end', commit: false, bump: 'next' };
  switch (info.state) {
    case 'Ongoing':
      return { kind: 'end', commit, bump: 'next' };
    case 'CompleteCommit':
      if (commit) return retry ? { kind: 'done' } : refuse(ErrorCode.INVALID_TXN_STATE);
      return retry ? refuse(ErrorCode.INVALID_TXN_STATE) : abortNothing;
    case 'CompleteAbort':
      if (commit) return refuse(ErrorCode.INVALID_TXN_STATE);
      return retry ? { kind: 'done' } : abortNothing;
    case 'Empty':
      return commit ? refuse(ErrorCode.INVALID_TXN_STATE) : abortNothing;
  }
}
