// DescribeTransactions (key 65): v0 (kafka-transactions describe, Admin.describeTransactions), from
// the coordinator's stored state (KafkaApis.handleDescribeTransactionsRequest and
// TransactionCoordinator.handleDescribeTransactions): DESCRIBE on each transactional id, an unknown
// one TRANSACTIONAL_ID_NOT_FOUND, only the partitions of topics the principal may DESCRIBE.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DescribeTransactionsRequest,
  DescribeTransactionsResponse,
  DescribeTransactionsResponseTransactionState,
} from '../../protocol/messages';
import { StorageError } from '../../storage/storage';
import type { ApiHandler, RequestContext } from '../context';
import { may } from './authz';
import { coordinatorGate } from '../cluster-answers';

async function describe(
  ctx: RequestContext,
  transactionalId: string,
): Promise<DescribeTransactionsResponseTransactionState> {
  const fail = (errorCode: number): DescribeTransactionsResponseTransactionState => ({
    errorCode,
    transactionalId,
    transactionState: '',
    transactionTimeoutMs: 0,
    transactionStartTimeMs: 0n,
    producerId: 0n,
    producerEpoch: 0,
    topics: [],
  });
  if (!may(ctx, 'DESCRIBE', 'TRANSACTIONAL_ID', transactionalId))
    return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const { transactions } = ctx.broker;
  if (transactions.isClosed) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  if (transactionalId === '') return fail(ErrorCode.INVALID_REQUEST);
  const notHere = await coordinatorGate(ctx, 'transaction', transactionalId);
  if (notHere !== ErrorCode.NONE) return fail(notHere);
  let info;
  try {
    info = await transactions.describe(transactionalId);
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    ctx.broker.logger.error('describing a transaction failed', { transactionalId, err });
    return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  if (!info) return fail(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
  const topics = new Map<string, number[]>();
  for (const p of info.partitions) {
    if (!may(ctx, 'DESCRIBE', 'TOPIC', p.topic)) continue;
    const list = topics.get(p.topic) ?? [];
    topics.set(p.topic, list);
    list.push(p.partition);
  }
  return {
    errorCode: ErrorCode.NONE,
    transactionalId,
    transactionState: info.state,
    transactionTimeoutMs: info.timeoutMs,
    transactionStartTimeMs: BigInt(info.startedMs),
    producerId: BigInt(info.producerId),
    producerEpoch: info.producerEpoch,
    topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
  };
}

export const describeTransactionsHandler: ApiHandler<DescribeTransactionsRequest, DescribeTransactionsResponse> = {
  apiKey: ApiKey.DescribeTransactions,
  minVersion: 0,
  maxVersion: 0,
  handle: async (ctx, req) => ({
    throttleTimeMs: 0,
    transactionStates: await Promise.all(req.transactionalIds.map((id) => describe(ctx, id))),
  }),
};
