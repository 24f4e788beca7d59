// ListTransactions (key 66): v0-1 (kafka-transactions list, the Java admin's listTransactions).
// minnow has no transactions yet (InitProducerId refuses a transactional id), so none is ever
// open: an empty list, with the state filters Kafka does not know echoed back as it does
// (TransactionStateManager.listTransactionStates).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ListTransactionsRequest, ListTransactionsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

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
  handle: (_ctx, req) => ({
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    unknownStateFilters: req.stateFilters.filter((s) => !TRANSACTION_STATES.has(s)),
    transactionStates: [],
  }),
};
