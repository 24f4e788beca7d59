// DescribeTopicPartitions (key 75): v0 (KIP-966). What Kafka 4's `kafka-topics --describe` and the
// Java admin's describeTopics use, paged: at most ResponsePartitionLimit partitions per answer
// (bounded by max.request.partition.size.limit, 2000), and a NextCursor naming the topic and
// partition to ask from next. Kafka's DescribeTopicPartitionsRequestHandler and
// KRaftMetadataCache.describeTopicResponse, step for step:
// - an empty topic list is every topic the principal may DESCRIBE (no unknown or refused topics in
//   the answer); named topics are answered each, a refused one TOPIC_AUTHORIZATION_FAILED without
//   its id (after the others), an unknown one UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION
//   for a name that cannot be one);
// - topics sort by name and start at the cursor's topic (names below it are skipped); the cursor's
//   topic starts at its partition, the others at 0; a cursor topic missing from a named list, or a
//   negative cursor partition, is INVALID_REQUEST for every named topic;
// - ELR and last-known ELR (KIP-966) are empty lists: one copy of each partition (the database
//   replicates), so no replica is ever out of sync, as on a Kafka whose ISR is every replica.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
  DescribeTopicPartitionsResponseCursor,
  DescribeTopicPartitionsResponsePartition,
  DescribeTopicPartitionsResponseTopic,
} from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { TopicInfo } from '../../storage/storage';
import type { ApiHandler, RequestContext } from '../context';
import { partitionEntry } from '../cluster-answers';
import { isInternalTopic, topicNameError } from '../topic-names';
import { authorizedOperations, may } from './authz';

/** Kafka's max.request.partition.size.limit default (ServerConfigs): a request asks for at most this many. */
export const MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000;

function invalidRequest(req: DescribeTopicPartitionsRequest): DescribeTopicPartitionsResponse {
  // DescribeTopicPartitionsRequest.getErrorResponse: the code on every named topic, nothing else.
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      errorCode: ErrorCode.INVALID_REQUEST,
      name: t.name,
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: -2147483648,
    })),
    nextCursor: null,
  };
}

function partitions(ctx: RequestContext, t: TopicInfo, from: number, upTo: number) {
  const out: DescribeTopicPartitionsResponsePartition[] = [];
  for (let p = from; p < upTo; p++) {
    out.push({ ...partitionEntry(ctx.broker, t.name, p), eligibleLeaderReplicas: [], lastKnownElr: [] });
  }
  return out;
}

export const describeTopicPartitionsHandler: ApiHandler<
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse
> = {
  apiKey: ApiKey.DescribeTopicPartitions,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const storage = ctx.broker.storage;
    const all = req.topics.length === 0;
    const cursor = req.cursor ?? null;
    const fromTopic = cursor?.topicName ?? '';
    const names = new Set<string>();
    const asked = all ? await storage.listTopics() : req.topics;
    for (const t of asked) if (t.name >= fromTopic) names.add(t.name);
    if (cursor && ((!all && !names.has(cursor.topicName)) || cursor.partitionIndex < 0)) return invalidRequest(req);

    const refused: DescribeTopicPartitionsResponseTopic[] = [];
    const allowed = [...names].sort().filter((name) => {
      const ok = may(ctx, 'DESCRIBE', 'TOPIC', name);
      if (!ok && !all) {
        refused.push({
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          name,
          topicId: ZERO_UUID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: -2147483648,
        });
      }
      return ok;
    });

    const limit = Math.max(Math.min(MAX_REQUEST_PARTITION_SIZE_LIMIT, req.responsePartitionLimit ?? 2000), 1);
    let remaining = limit;
    const topics: DescribeTopicPartitionsResponseTopic[] = [];
    let nextCursor: DescribeTopicPartitionsResponseCursor | null = null;
    for (const name of allowed) {
      if (remaining === 0) {
        // Every partition of the topics before is answered: the next page starts at this topic.
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const t = await storage.topic(name);
      if (!t) {
        if (!all) {
          const errorCode = topicNameError(name)
            ? ErrorCode.INVALID_TOPIC_EXCEPTION
            : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          topics.push({ errorCode, name, topicId: ZERO_UUID, isInternal: isInternalTopic(name), partitions: [] });
        }
        continue;
      }
      const from = name === fromTopic ? cursor!.partitionIndex : 0;
      const upTo = Math.min(t.partitionCount, from + remaining);
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: t.topicId,
        isInternal: isInternalTopic(name),
        partitions: partitions(ctx, t, from, upTo),
      });
      if (upTo < t.partitionCount) {
        nextCursor = { topicName: name, partitionIndex: upTo };
        break;
      }
      remaining -= Math.max(upTo - from, 0);
    }
    for (const t of topics) if (t.name) t.topicAuthorizedOperations = authorizedOperations(ctx, 'TOPIC', t.name);
    return { throttleTimeMs: 0, topics: [...topics, ...refused], nextCursor };
  },
};
