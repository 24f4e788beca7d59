// InitProducerId (key 22): v0-5. Without a transactional id (idempotent producers, the Java default
// since 3.0) each call gets a fresh producer id at epoch 0; a v3+ epoch bump request (KIP-360) is
// answered the same way, which clients accept. With one, the transaction coordinator
// (src/transactions) creates the id or bumps its epoch, fencing the previous producer.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/messages';
import { StorageError } from '../../storage/storage';
import type { ApiHandler, RequestContext } from '../context';
import { fencedFor } from '../../transactions/coordinator';
import { may, mayOnCluster } from './authz';
import { coordinatorGate } from '../cluster-answers';

const NO_PRODUCER_ID = -1n;
const NO_PRODUCER_EPOCH = -1;

/** KafkaApis.handleInitProducerIdRequest with a transactional id. */
async function initTransactional(
  ctx: RequestContext,
  req: InitProducerIdRequest,
  transactionalId: string,
): Promise<InitProducerIdResponse> {
  const fail = (errorCode: number): InitProducerIdResponse => ({
    throttleTimeMs: 0,
    errorCode,
    producerId: NO_PRODUCER_ID,
    producerEpoch: NO_PRODUCER_EPOCH,
  });
  if (!may(ctx, 'WRITE', 'TRANSACTIONAL_ID', transactionalId))
    return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  // v3+ (KIP-360): the producer's current id and epoch, both -1 or neither.
  const producerId = req.producerId ?? NO_PRODUCER_ID;
  const producerEpoch = req.producerEpoch ?? NO_PRODUCER_EPOCH;
  if ((producerId === NO_PRODUCER_ID) !== (producerEpoch === NO_PRODUCER_EPOCH)) return fail(ErrorCode.INVALID_REQUEST);
  const expected = producerId === NO_PRODUCER_ID ? null : { producerId: Number(producerId), producerEpoch };
  const notHere = await coordinatorGate(ctx, 'transaction', transactionalId);
  if (notHere !== ErrorCode.NONE) return fail(notHere);
  const r = await ctx.broker.transactions.initProducerId(transactionalId, req.transactionTimeoutMs, expected);
  return {
    throttleTimeMs: 0,
    errorCode: fencedFor(r.errorCode, ctx.apiVersion, 4),
    producerId: BigInt(r.producerId),
    producerEpoch: r.producerEpoch,
  };
}

export const initProducerIdHandler: ApiHandler<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: ApiKey.InitProducerId,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const { broker } = ctx;
    if (req.transactionalId !== null) return initTransactional(ctx, req, req.transactionalId);
    // KafkaApis.handleInitProducerIdRequest (Kafka 3+): an idempotent producer needs IDEMPOTENT_WRITE
    // on the cluster or WRITE on some topic.
    if (
      !mayOnCluster(ctx, 'IDEMPOTENT_WRITE') &&
      !broker.authorizer.authorizeByResourceType(ctx.session, 'WRITE', 'TOPIC')
    ) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        producerId: -1n,
        producerEpoch: -1,
      };
    }
    try {
      const { producerId, producerEpoch } = await broker.storage.initProducerId(null, broker.now());
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: BigInt(producerId), producerEpoch };
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      if (err.diskFull) broker.diskSpace?.full();
      else broker.logger.error('InitProducerId failed', { err });
      // Kafka's answer when it cannot hand out a producer id yet (RPCProducerIdManager waiting
      // for its next block): retriable, so clients retry within their own time bound.
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        producerId: -1n,
        producerEpoch: -1,
      };
    }
  },
};
