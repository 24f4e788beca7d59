// ListTransactions (key 66): v0-1 (kafka-transactions list, Admin.listTransactions), from the
// coordinator's stored state (TransactionStateManager.listTransactionStates): filters by state
// (unknown names echoed back), by producer id and, v1 (KIP-994), by how long the transaction has
// been running; only the ids the principal may DESCRIBE (KafkaApis.handleListTransactionsRequest).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ListTransactionsRequest, ListTransactionsResponse } from '../../protocol/messages';
import { StorageError } from '../../storage/storage';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { placedHere } from '../cluster-answers';

/** Kafka's TransactionState names. */
const TRANSACTION_STATES = new Set([
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
]);

export const listTransactionsHandler: ApiHandler<ListTransactionsRequest, ListTransactionsResponse> = {
  apiKey: ApiKey.ListTransactions,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const { transactions } = ctx.broker;
    const unknownStateFilters = req.stateFilters.filter((s) => !TRANSACTION_STATES.has(s));
    const fail = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, unknownStateFilters, transactionStates: [] });
    if (transactions.isClosed) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    let all;
    try {
      all = await transactions.list();
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      ctx.broker.logger.error('listing transactions failed', { err });
      return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    const states = new Set(req.stateFilters);
    const producerIds = new Set(req.producerIdFilters.map(Number));
    const duration = Number(req.durationFilter ?? -1n);
    const now = ctx.broker.now();
    const transactionStates = all
      .filter(
        (t) =>
          (producerIds.size === 0 || producerIds.has(t.producerId)) &&
          (states.size === 0 || states.has(t.state)) &&
          // As Kafka: the start of the last transaction, also once it ended (-1 before the first).
          (duration < 0 || now - t.startedMs > duration) &&
          may(ctx, 'DESCRIBE', 'TRANSACTIONAL_ID', t.transactionalId) &&
          // Each broker lists the ids it coordinates: the admin client asks every broker (src/cluster).
          placedHere(ctx.broker, 'transaction', t.transactionalId),
      )
      .map((t) => ({
        transactionalId: t.transactionalId,
        producerId: BigInt(t.producerId),
        transactionState: t.state,
      }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  },
};
