// FindCoordinator (key 10): v0-6. v4+ batches keys (KIP-699). The broker placement names for the
// group (key type 0) or transactional id (key type 1): this one alone, or one of several sharing a
// postgres:// database (src/cluster), which takes the key's lease when the client comes.
import { ApiKey } from '../../../protocol/api-keys';
import { ErrorCode } from '../../../protocol/error-codes';
import type {
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  FindCoordinatorResponseCoordinator,
} from '../../../protocol/messages';
import { ApiHandler, RequestContext } from '../../context';
import { coordinatorEndpoint } from '../../cluster-answers';
import { may } from '../authz';
import { ensureOffsetsTopic } from '../../offsets-topic';

export const CoordinatorType = { GROUP: 0, TRANSACTION: 1 } as const;

function lookup(ctx: RequestContext, key: string, keyType: number): Required<FindCoordinatorResponseCoordinator> {
  const { broker } = ctx;
  const fail = (errorCode: number, errorMessage: string) => ({
    key,
    nodeId: -1,
    host: '',
    port: -1,
    errorCode,
    errorMessage,
  });
  // KafkaApis.getCoordinator: DESCRIBE on the group or the transactional id, before anything else.
  if (keyType === CoordinatorType.GROUP && !may(ctx, 'DESCRIBE', 'GROUP', key))
    return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED, `DESCRIBE on group ${key} is not allowed`);
  if (keyType === CoordinatorType.TRANSACTION && !may(ctx, 'DESCRIBE', 'TRANSACTIONAL_ID', key))
    return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, `DESCRIBE on transactional id ${key} is not allowed`);
  if (keyType !== CoordinatorType.GROUP && keyType !== CoordinatorType.TRANSACTION)
    return fail(ErrorCode.INVALID_REQUEST, `unknown coordinator key type ${keyType}`);
  const closed = keyType === CoordinatorType.GROUP ? broker.groups.isClosed : broker.transactions.isClosed;
  if (closed) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the broker is shutting down');
  return {
    key,
    ...coordinatorEndpoint(ctx, keyType === CoordinatorType.GROUP ? 'group' : 'transaction')(key),
    errorCode: ErrorCode.NONE,
    errorMessage: null,
  };
}

export const findCoordinatorHandler: ApiHandler<FindCoordinatorRequest, FindCoordinatorResponse> = {
  apiKey: ApiKey.FindCoordinator,
  minVersion: 0,
  maxVersion: 6,
  async handle(ctx, req) {
    const keyType = req.keyType ?? CoordinatorType.GROUP;
    const keys = ctx.apiVersion >= 4 ? (req.coordinatorKeys ?? []) : [req.key ?? ''];
    const found = keys.map((k) => lookup(ctx, k, keyType));
    // KafkaApis.getCoordinator creates __consumer_offsets at the first authorized group lookup;
    // minnow creates it too, empty (offsets-topic.ts).
    if (keyType === CoordinatorType.GROUP && found.some((c) => c.errorCode === ErrorCode.NONE))
      await ensureOffsetsTopic(ctx.broker);
    if (ctx.apiVersion >= 4) return { throttleTimeMs: 0, coordinators: found };
    const { errorCode, errorMessage, nodeId, host, port } = found[0]!;
    return { throttleTimeMs: 0, errorCode, errorMessage, nodeId, host, port };
  },
};
