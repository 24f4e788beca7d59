// InitProducerId (key 22): v0-5, for idempotent producers (the Java default since 3.0). Each
// call without a transactional id gets a fresh producer id at epoch 0; a v3+ epoch bump request
// (KIP-360) is answered the same way, which clients accept. Transactions are not supported yet.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/messages';
import { StorageError } from '../../storage/storage';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';

export const initProducerIdHandler: ApiHandler<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: ApiKey.InitProducerId,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const { broker } = ctx;
    if (req.transactionalId !== null) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        producerId: -1n,
        producerEpoch: -1,
      };
    }
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
      const { producerId, producerEpoch } = broker.storage.initProducerId(null, broker.now());
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
