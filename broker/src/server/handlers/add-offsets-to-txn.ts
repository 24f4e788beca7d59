// AddOffsetsToTxn (key 25): v0-4, sendOffsetsToTransaction's first step: the group joins the
// transaction, so TxnOffsetCommit may stage its offsets (KafkaApis.handleAddOffsetsToTxnRequest:
// WRITE on the transactional id, READ on the group). v4 only allows TRANSACTION_ABORTABLE, which
// this broker never sends.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../protocol/messages';
import { fencedFor } from '../../transactions/coordinator';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { coordinatorGate } from '../cluster-answers';

export const addOffsetsToTxnHandler: ApiHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> = {
  apiKey: ApiKey.AddOffsetsToTxn,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const answer = (errorCode: number) => ({ throttleTimeMs: 0, errorCode });
    if (!may(ctx, 'WRITE', 'TRANSACTIONAL_ID', req.transactionalId))
      return answer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!may(ctx, 'READ', 'GROUP', req.groupId)) return answer(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const notHere = await coordinatorGate(ctx, 'transaction', req.transactionalId);
    if (notHere !== ErrorCode.NONE) return answer(notHere);
    const producer = { producerId: Number(req.producerId), producerEpoch: req.producerEpoch };
    const error = await ctx.broker.transactions.addOffsets(req.transactionalId, producer, req.groupId);
    return answer(fencedFor(error, ctx.apiVersion, 2));
  },
};
