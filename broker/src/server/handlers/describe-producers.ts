// DescribeProducers (key 61): v0 (KIP-664; kafka-transactions describe-producers and find-hanging,
// the admin clients' describeProducers). Per partition, the producers with state there (storage
// activeProducers; Kafka's ProducerStateManager.activeProducers): id, epoch, last sequence, the
// newest batch's timestamp, and the first offset of the transaction it has open there, which is
// what find-hanging compares with the coordinators' view. As KafkaApis.handleDescribeProducersRequest:
// an invalid topic name is INVALID_TOPIC_EXCEPTION, a topic without READ TOPIC_AUTHORIZATION_FAILED,
// an unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION, for each partition asked.
// The coordinator epoch is 0 for a transactional id's producer (minnow's one coordinator never
// moves: every marker carries 0, control-batch.ts) and -1 for an idempotent one, as in Kafka for a
// producer no coordinator ever wrote a marker for.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DescribeProducersRequest,
  DescribeProducersResponse,
  DescribeProducersResponsePartitionResponse,
} from '../../protocol/messages';
import type { ApiHandler, RequestContext } from '../context';
import { topicNameError } from '../topic-names';
import { may } from './authz';

/** Producer ids of transactional ids, read once per request and only when a partition has producers. */
function transactionalProducers(ctx: RequestContext): () => Promise<Set<number>> {
  let ids: Promise<Set<number>> | undefined;
  return () => (ids ??= ctx.broker.storage.transactions().then((all) => new Set(all.map((t) => t.producerId))));
}

export const describeProducersHandler: ApiHandler<DescribeProducersRequest, DescribeProducersResponse> = {
  apiKey: ApiKey.DescribeProducers,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const storage = ctx.broker.storage;
    const transactional = transactionalProducers(ctx);
    const topics: DescribeProducersResponse['topics'] = [];
    for (const t of req.topics) {
      let topicError: number | null = null;
      if (topicNameError(t.name)) topicError = ErrorCode.INVALID_TOPIC_EXCEPTION;
      else if (!may(ctx, 'READ', 'TOPIC', t.name)) topicError = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      else if (!(await storage.topic(t.name))) topicError = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      const partitions: DescribeProducersResponsePartitionResponse[] = [];
      for (const partitionIndex of t.partitionIndexes) {
        const failed = { partitionIndex, errorMessage: null, activeProducers: [] };
        if (topicError !== null) {
          partitions.push({ ...failed, errorCode: topicError });
          continue;
        }
        const producers = await storage.activeProducers(t.name, partitionIndex);
        if (!producers) {
          partitions.push({ ...failed, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
          continue;
        }
        const txnIds = producers.length > 0 ? await transactional() : new Set<number>();
        partitions.push({
          partitionIndex,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          activeProducers: producers.map((p) => ({
            producerId: BigInt(p.producerId),
            producerEpoch: p.producerEpoch,
            lastSequence: p.lastSequence,
            lastTimestamp: BigInt(p.lastTimestamp),
            coordinatorEpoch: txnIds.has(p.producerId) ? 0 : -1,
            currentTxnStartOffset: BigInt(p.currentTxnStartOffset),
          })),
        });
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
