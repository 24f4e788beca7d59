// AddPartitionsToTxn (key 24): v0-3, what producers send before their first record to a partition
// of a transaction. v4+ is the batched broker-to-broker form (KIP-890 part 1's verification): a
// single node verifies inside its own append, so it is not advertised. KafkaApis
// .handleAddPartitionsToTxnRequest: WRITE on the transactional id, WRITE on each topic; any
// partition refused (not authorized, unknown) fails the whole request, the others get
// OPERATION_NOT_ATTEMPTED; otherwise the coordinator's one answer goes to every partition.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/messages';
import type { TxnPartition } from '../../storage/storage';
import { fencedFor } from '../../transactions/coordinator';
import type { ApiHandler } from '../context';
import { isInternalTopic } from '../topic-names';
import { authorizedNames, may } from './authz';
import { coordinatorGate } from '../cluster-answers';

/** The response of v0-3: one error per partition, grouped by topic. */
function answer(errors: Map<string, Map<number, number>>): AddPartitionsToTxnResponse {
  return {
    throttleTimeMs: 0,
    resultsByTopicV3AndBelow: [...errors].map(([name, parts]) => ({
      name,
      resultsByPartition: [...parts].map(([partitionIndex, partitionErrorCode]) => ({
        partitionIndex,
        partitionErrorCode,
      })),
    })),
  };
}

export const addPartitionsToTxnHandler: ApiHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> = {
  apiKey: ApiKey.AddPartitionsToTxn,
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, req) {
    const { broker } = ctx;
    const transactionalId = req.v3AndBelowTransactionalId ?? '';
    // Kafka reads the partitions into a set: one named twice is added and answered once.
    const requested = new Map<string, Set<number>>();
    for (const t of req.v3AndBelowTopics ?? []) {
      const parts = requested.get(t.name) ?? new Set<number>();
      requested.set(t.name, parts);
      for (const p of t.partitions) parts.add(p);
    }
    const all = (errorCode: number) =>
      new Map([...requested].map(([name, parts]) => [name, new Map([...parts].map((p) => [p, errorCode]))]));
    if (!may(ctx, 'WRITE', 'TRANSACTIONAL_ID', transactionalId))
      return answer(all(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
    // Internal topics are never authorized here (Kafka filters them out before the check).
    const writable = authorizedNames(
      ctx,
      'WRITE',
      'TOPIC',
      [...requested.keys()].filter((t) => !isInternalTopic(t)),
    );
    const errors = new Map<string, Map<number, number>>();
    const partitions: TxnPartition[] = [];
    let refused = false;
    for (const [name, parts] of requested) {
      const topic = await broker.storage.topic(name);
      const out = new Map<number, number>();
      errors.set(name, out);
      for (const partition of parts) {
        if (!writable.has(name)) out.set(partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        else if (!topic || partition < 0 || partition >= topic.partitionCount)
          out.set(partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        else {
          out.set(partition, ErrorCode.NONE);
          partitions.push({ topic: name, partition });
          continue;
        }
        refused = true;
      }
    }
    if (refused) {
      for (const out of errors.values())
        for (const [p, e] of out) if (e === ErrorCode.NONE) out.set(p, ErrorCode.OPERATION_NOT_ATTEMPTED);
      return answer(errors);
    }
    const notHere = await coordinatorGate(ctx, 'transaction', transactionalId);
    if (notHere !== ErrorCode.NONE) return answer(all(notHere));
    const producer = {
      producerId: Number(req.v3AndBelowProducerId ?? -1n),
      producerEpoch: req.v3AndBelowProducerEpoch ?? -1,
    };
    const error = await broker.transactions.addPartitions(transactionalId, producer, partitions);
    return answer(all(fencedFor(error, ctx.apiVersion, 2)));
  },
};
