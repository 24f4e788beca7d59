// DeleteTopics (key 20): v0-6 (v0, gone in Kafka 4.0 by KIP-896, differs from v1 only by having no
// throttle time in the response). Deletes exactly the named topics (v6 also by id) with their
// batches, producer state and committed offsets. Worked in slices of at most TOPICS_PER_SLICE
// topics (fewer when topics are dear: SliceSizer), each
// one storage transaction with a turn of the event loop between them (yield-slices.ts), as
// CreateTopics: deleting thousands of topics must not stall other clients (issues 11, 29).
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
import type { TopicInfo } from '../../storage/storage';
import type { ApiHandler, BrokerContext } from '../context';
import { may } from './authz';
import { retryIfDiskFull } from '../space-retry';
import { FIRST_SLICE_TOPICS, nextTurn, sized, SliceSizer, slicesOf, TOPICS_PER_SLICE } from '../yield-slices';
import { catalogChanges } from '../../keyed-serial';
import { mutationThrottleMs, requestMutationQuota } from '../quotas/request-mutation-quota';

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
    const responses: DeleteTopicsResponseDeletableTopicResult[] = [];
    let first = true;
    const sizer = new SliceSizer(FIRST_SLICE_TOPICS, TOPICS_PER_SLICE);
    for (const slice of slicesOf(wanted, () => sizer.next)) {
      if (!first) await nextTurn();
      first = false;
      // A slice's look-ups and deletions as one catalog change (keyed-serial.ts).
      responses.push(
        ...(await sized(sizer, slice.length, () => catalogChanges.run(broker.storage, () => deleteSlice(slice)))),
      );
    }
    return { throttleTimeMs: mutationThrottleMs(ctx, quota), responses };

    /** Each topic's checks in request order, then the slice's deletions in one storage call. */
    async function deleteSlice(slice: readonly Wanted[]): Promise<DeleteTopicsResponseDeletableTopicResult[]> {
      const answers: (DeleteTopicsResponseDeletableTopicResult | undefined)[] = [];
      const doomed: { at: number; topic: TopicInfo }[] = [];
      for (const w of slice) {
        const checked = await checkOne(w);
        if ('errorCode' in checked) answers.push(checked);
        else {
          doomed.push({ at: answers.length, topic: checked });
          answers.push(undefined); // answered below, once the slice is written
        }
      }
      const results = await deleteWithRoom(
        broker,
        doomed.map((d) => d.topic.name),
      );
      let freed = false;
      doomed.forEach(({ at, topic }, i) => {
        const r = results[i]!;
        const w = slice[at]!;
        if (r === true) {
          freed = true;
          broker.logger.info('deleted topic', { topic: topic.name });
          answers[at] = { name: topic.name, topicId: topic.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
        } else if (r === false)
          answers[at] = gone(w); // another broker on the same database deleted it first
        else {
          broker.logger.error('deleting a topic failed', { topic: topic.name, err: r });
          answers[at] = {
            name: topic.name,
            topicId: topic.topicId,
            errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
            errorMessage: `deleting ${topic.name} failed: ${r.message}`,
          };
        }
      });
      if (freed) broker.diskSpace?.invalidate(); // room again: produce resumes without waiting for the next check
      return answers as DeleteTopicsResponseDeletableTopicResult[];
    }

    /** The topic to delete, or the answer that refuses it. */
    async function checkOne(w: Wanted): Promise<DeleteTopicsResponseDeletableTopicResult | TopicInfo> {
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
      if (!topic) return gone(w);
      const throttled = quota.record(topic.partitionCount, broker.now());
      if (throttled)
        return {
          name: topic.name,
          topicId: topic.topicId,
          errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED,
          errorMessage: throttled.message,
        };
      return topic;
    }
  },
};

type Wanted = { name?: string | null; topicId?: string };

function gone(w: Wanted): DeleteTopicsResponseDeletableTopicResult {
  const byId = !w.name;
  return {
    name: w.name ?? null,
    topicId: w.topicId ?? ZERO_UUID,
    errorCode: byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    errorMessage: byId ? `no topic with id ${w.topicId}` : `no topic named ${w.name}`,
  };
}

/**
 * storage.deleteTopics, run once more for the names that failed for want of room once the
 * reserve file is gone (space-retry.ts), as a whole if the slice's commit itself failed so.
 */
async function deleteWithRoom(
  broker: Pick<BrokerContext, 'storage' | 'diskSpace'>,
  names: readonly string[],
): Promise<(boolean | StorageError)[]> {
  if (names.length === 0) return [];
  let results: (boolean | StorageError)[];
  try {
    results = await retryIfDiskFull(broker, () => broker.storage.deleteTopics(names));
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    return names.map(() => err); // the slice's commit failed: none of its topics was deleted
  }
  const full = names.filter((_, i) => (results[i] as StorageError).diskFull);
  if (full.length === 0 || !broker.diskSpace || broker.diskSpace.full() <= 0) return results;
  const again = await broker.storage.deleteTopics(full).catch((err: unknown) => {
    if (err instanceof StorageError) return full.map(() => err);
    throw err;
  });
  let next = 0;
  return results.map((r) => ((r as StorageError).diskFull ? again[next++]! : r));
}
