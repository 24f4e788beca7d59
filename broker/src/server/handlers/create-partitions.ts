// CreatePartitions (key 37): v0-3 (librdkafka sends v0 only). Grows a topic; never shrinks it.
// Partition bounds as CreateTopics (partition-limits.ts), validateOnly included: over the request
// bound every topic is refused (Kafka's controller bounds a request's records, MAX_RECORDS_PER_USER_OP).
// controller_mutation_rate (KIP-599): each topic that passed every check is charged the partitions
// it gains; strict (refused with THROTTLING_QUOTA_EXCEEDED) from v3 (quotas/controller-mutation-quotas.ts).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  CreatePartitionsRequest,
  CreatePartitionsResponse,
  CreatePartitionsResponseCreatePartitionsTopicResult,
} from '../../protocol/messages';
import { StorageError } from '../../storage/storage';
import type { ApiHandler } from '../context';
import { authorizedNames } from './authz';
import { PartitionBudget, requestPartitionsRefusal, topicPartitionsRefusal } from '../partition-limits';
import { catalogChanges } from '../../keyed-serial';
import { mutationThrottleMs, requestMutationQuota } from '../quotas/controller-mutation-quotas';

const STRICT_QUOTA_SINCE_VERSION = 3;

export const createPartitionsHandler: ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> = {
  apiKey: ApiKey.CreatePartitions,
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, req) {
    const { broker } = ctx;
    // KafkaApis.handleCreatePartitionsRequest: ALTER on each topic.
    const alterable = authorizedNames(
      ctx,
      'ALTER',
      'TOPIC',
      req.topics.map((t) => t.name),
    );
    let requested = 0;
    for (const t of req.topics)
      if (alterable.has(t.name))
        requested += Math.max(0, t.count - ((await broker.storage.topic(t.name))?.partitionCount ?? t.count));
    const tooMany = requestPartitionsRefusal(broker.config, requested);
    if (tooMany) return { throttleTimeMs: 0, results: req.topics.map((t) => ({ name: t.name, ...tooMany })) };
    const budget = new PartitionBudget(broker, req.validateOnly);
    const quota = requestMutationQuota(ctx, STRICT_QUOTA_SINCE_VERSION);
    // Each topic's check, budget and growth run as one catalog change (keyed-serial.ts).
    const grow = async (
      t: CreatePartitionsRequest['topics'][number],
    ): Promise<CreatePartitionsResponseCreatePartitionsTopicResult> => {
      const fail = (errorCode: number, errorMessage: string) => ({ name: t.name, errorCode, errorMessage });
      if (!alterable.has(t.name))
        return fail(
          ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          'The topic authorization is failed: adding partitions needs ALTER on it.',
        );
      const topic = await broker.storage.topic(t.name);
      if (!topic) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no topic named ${t.name}`);
      if (t.count <= topic.partitionCount) {
        return fail(
          ErrorCode.INVALID_PARTITIONS,
          `topic ${t.name} has ${topic.partitionCount} partitions; the new count ${t.count} must be larger`,
        );
      }
      const overTopic = topicPartitionsRefusal(broker.config, t.name, t.count);
      if (overTopic) return { name: t.name, ...overTopic };
      const nodeId = broker.identity.nodeId;
      if (t.assignments && t.assignments.some((a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== nodeId)) {
        return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `every partition must be assigned to broker ${nodeId} alone`);
      }
      const refused = await budget.claim(t.name, t.count - topic.partitionCount);
      if (refused) return { name: t.name, ...refused };
      const throttled = quota.record(t.count - topic.partitionCount, broker.now());
      if (throttled) return fail(ErrorCode.THROTTLING_QUOTA_EXCEEDED, throttled.message);
      if (!req.validateOnly) {
        try {
          await broker.storage.createPartitions(t.name, t.count);
        } catch (err) {
          if (!(err instanceof StorageError)) throw err;
          // Another broker on the same database grew it first: the engine refused to shrink it.
          const now = await broker.storage.topic(t.name);
          if (now && now.partitionCount >= t.count)
            return fail(
              ErrorCode.INVALID_PARTITIONS,
              `topic ${t.name} has ${now.partitionCount} partitions; the new count ${t.count} must be larger`,
            );
          return fail(ErrorCode.KAFKA_STORAGE_ERROR, `topic ${t.name} was not grown: ${err.message}`);
        }
        broker.logger.info('added partitions', { topic: t.name, from: topic.partitionCount, to: t.count });
      }
      return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
    };
    const results = [];
    for (const t of req.topics) results.push(await catalogChanges.run(broker.storage, () => grow(t)));
    return { throttleTimeMs: mutationThrottleMs(ctx, quota), results };
  },
};
