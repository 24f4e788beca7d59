// InitProducerId as an idempotent producer (no transactional id) sends it: a producer id and epoch
// of its own, with which the broker drops its retried batches (KIP-98's idempotence).
import { ApiKey } from '../protocol/api-keys';
import type { InitProducerIdResponse } from '../protocol/messages';
import type { KafkaConnection } from './connection';

/** The broker's answer as it came, error code included: each caller words its own failure. */
export function initIdempotentProducer(conn: KafkaConnection): Promise<InitProducerIdResponse> {
  return conn.send(ApiKey.InitProducerId, conn.version(ApiKey.InitProducerId, 0, 4), {
    transactionalId: null,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
  });
}
