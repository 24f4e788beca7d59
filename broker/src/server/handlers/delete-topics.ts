// DeleteTopics (key 20): v0-6 (v0, gone in Kafka 4.0 by KIP-896, differs from v1 only by having no
// throttle time in the response). Deletes exactly the named topics (v6 also by id) with their
// batches, producer state and committed offsets. Worked in slices that yield to the event loop
// (yield-slices.ts), as CreateTopics: deleting thousands of topics must not stall other clients.
// controller_mutation_rate (KIP-599): each topic found and allowed is charged its partitions;
// strict (refused with THROTTLING_QUOTA_EXCEEDED) from v5 (quotas/controller-mutation-quotas.ts).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DeleteTopicsRequest,
  DeleteTopicsResponse,
  DeleteTopicsResponseDeletableTopicResult,
} from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import { StorageError } from '../../storage/storage';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { retryIfDiskFull } from '../space-retry';
import { SliceClock } from '../yield-slices';
import { catalogChanges } from '../../keyed-serial';
import { mutationThrottleMs, requestMutationQuota } from '../quotas/controller-mutation-quotas';

const STRICT_QUOTA_SINCE_VERSION = 5;

export const deleteTopicsHandler: ApiHandler<DeleteTopicsRequest, DeleteTopicsResponse> = {
  apiKey: ApiKey.DeleteTopics,
  minVersion: 0,
  maxVersion: 6,
  async handle(ctx, req) {
    const { broker } = ctx;
    const wanted =
      req.topics && req.topics.length > 0
        ? req.topics
        : (req.topicNames ?? []).map((name) => ({ name, topicId: ZERO_UUID }));
    const quota = requestMutationQuota(ctx, STRICT_QUOTA_SINCE_VERSION);
    const clock = new SliceClock();
    const responses: DeleteTopicsResponseDeletableTopicResult[] = [];
    for (const w of wanted) {
      await clock.maybeYield();
      // Look-up and deletion as one catalog change (keyed-serial.ts).
      responses.push(await catalogChanges.run(broker.storage, () => deleteOne(w)));
    }
    return { throttleTimeMs: mutationThrottleMs(ctx, quota), responses };

    async function deleteOne(w: {
      name?: string | null;
      topicId?: string;
    }): Promise<DeleteTopicsResponseDeletableTopicResult> {
      const topic = w.name
        ? await broker.storage.topic(w.name)
        : w.topicId && w.topicId !== ZERO_UUID
          ? await broker.storage.topicById(w.topicId)
          : undefined;
      // KafkaApis.handleDeleteTopicsRequest: DELETE on the topic. A topic named gets
      // TOPIC_AUTHORIZATION_FAILED whether it exists or not; one given by id keeps its name
      // secret unless the principal may DESCRIBE it.
      if (w.name && !may(ctx, 'DELETE', 'TOPIC', w.name))
        return {
          name: w.name,
          topicId: w.topicId ?? ZERO_UUID,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          errorMessage: null,
        };
      if (topic && !w.name) {
        if (!may(ctx, 'DESCRIBE', 'TOPIC', topic.name))
          return {
            name: null,
            topicId: topic.topicId,
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            errorMessage: null,
          };
        if (!may(ctx, 'DELETE', 'TOPIC', topic.name))
          return {
            name: topic.name,
            topicId: topic.topicId,
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            errorMessage: null,
          };
      }
      const gone = () => {
        const byId = !w.name;
        return {
          name: w.name ?? null,
          topicId: w.topicId ?? ZERO_UUID,
          errorCode: byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: byId ? `no topic with id ${w.topicId}` : `no topic named ${w.name}`,
        };
      };
      if (!topic) return gone();
      const throttled = quota.record(topic.partitionCount, broker.now());
      if (throttled)
        return {
          name: topic.name,
          topicId: topic.topicId,
          errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED,
          errorMessage: throttled.message,
        };
      try {
        // false: another broker on the same database deleted it first.
        if (!(await retryIfDiskFull(broker, () => broker.storage.deleteTopic(topic.name)))) return gone();
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        broker.logger.error('deleting a topic failed', { topic: topic.name, err });
        return {
          name: topic.name,
          topicId: topic.topicId,
          errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
          errorMessage: `deleting ${topic.name} failed: ${err.message}`,
        };
      }
      broker.diskSpace?.invalidate(); // room again: produce resumes without waiting for the next check
      broker.logger.info('deleted topic', { topic: topic.name });
      return { name: topic.name, topicId: topic.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
    }
  },
};
