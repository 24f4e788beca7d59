// EndTxn (key 26): v0-5, commitTransaction / abortTransaction. The coordinator writes every
// partition's marker and the decision in one storage transaction and wakes the read_committed
// fetches waiting on those partitions. v4 only allows TRANSACTION_ABORTABLE; v5 is transaction
// version 2 (KIP-890 part 2, TransactionVersion.transactionVersionForEndTxn): each end bumps the
// epoch, the markers carry the new one and the answer names it (a new producer id once it
// overflows), which the producer goes on with.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { EndTxnRequest, EndTxnResponse } from '../../protocol/messages';
import { fencedFor } from '../../transactions/coordinator';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { coordinatorGate } from '../cluster-answers';

export const endTxnHandler: ApiHandler<EndTxnRequest, EndTxnResponse> = {
  apiKey: ApiKey.EndTxn,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    if (!may(ctx, 'WRITE', 'TRANSACTIONAL_ID', req.transactionalId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    const notHere = await coordinatorGate(ctx, 'transaction', req.transactionalId);
    if (notHere !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: notHere };
    const producer = { producerId: Number(req.producerId), producerEpoch: req.producerEpoch };
    const transactionVersion = ctx.apiVersion >= 5 ? 2 : 1;
    const r = await ctx.broker.transactions.endTransaction(
      req.transactionalId,
      producer,
      req.committed,
      transactionVersion,
    );
    return {
      throttleTimeMs: 0,
      errorCode: fencedFor(r.errorCode, ctx.apiVersion, 2),
      producerId: BigInt(r.producerId),
      producerEpoch: r.producerEpoch,
    };
  },
};
