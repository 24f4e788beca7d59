// Metadata (key 3): v0-12. The live brokers and each partition's leader (cluster-answers.ts; one
// broker alone leads every partition). Topic ids from v10; v0 asks for
// every topic with an empty list, v1+ with null. Unknown topics are created when
// auto.create.topics.enable is on and the request allows it (v4+), and answered as Kafka 4 answers
// while its controller creates them (UNKNOWN_TOPIC_OR_PARTITION, no partitions: the next request
// sees them); internal names never are (see topic-names.ts): Kafka's answer for a missing topic
// without auto-creation, flagged internal.
// Auto-creation obeys the partition bounds (partition-limits.ts; KIP-578 closes that back door
// too): a refused topic gets POLICY_VIOLATION, as ZooKeeper-mode Kafka returned a creation error
// in Metadata (Errors.forException), rather than UNKNOWN_TOPIC_OR_PARTITION that clients retry.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { MetadataRequest, MetadataResponse, MetadataResponseTopic } from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { TopicInfo } from '../../storage/storage';
import { StorageError } from '../../storage/storage';
import { type ApiHandler, type BrokerContext } from '../context';
import { controllerId, liveBrokers, partitionEntry } from '../cluster-answers';
import { PartitionBudget, topicPartitionsRefusal } from '../partition-limits';
import { catalogChanges } from '../../keyed-serial';
import { authorizedOperations, clusterAuthorizedOperations, may, mayOnCluster } from './authz';
import { isInternalTopic, isReservedTopic, topicNameError } from '../topic-names';

/** Kafka's value for "authorized operations not requested". */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export function topicMetadata(broker: BrokerContext, t: TopicInfo): MetadataResponseTopic {
  const partitions = [];
  for (let p = 0; p < t.partitionCount; p++) partitions.push(partitionEntry(broker, t.name, p));
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    topicId: t.topicId,
    isInternal: isInternalTopic(t.name),
    partitions,
    topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

const missing = (name: string | null, errorCode: number, topicId = ZERO_UUID): MetadataResponseTopic => ({
  errorCode,
  name,
  topicId,
  isInternal: isInternalTopic(name),
  partitions: [],
  topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
});

/**
 * Creates a topic with the broker defaults (num.partitions) when auto-creation applies and the
 * partition bounds allow it; else the topic's Metadata entry with the refusal.
 */
export function autoCreateTopic(
  broker: BrokerContext,
  name: string,
  budget: PartitionBudget,
): Promise<TopicInfo | MetadataResponseTopic> {
  return catalogChanges.run(broker.storage, () => createNow(broker, name, budget));
}

async function createNow(
  broker: BrokerContext,
  name: string,
  budget: PartitionBudget,
): Promise<TopicInfo | MetadataResponseTopic> {
  // Another request may have created it while this one waited its turn.
  const existing = await broker.storage.topic(name);
  if (existing) return existing;
  const refused =
    topicPartitionsRefusal(broker.config, name, broker.config.numPartitions) ??
    (await budget.claim(name, broker.config.numPartitions));
  if (refused) {
    broker.logger.warn('topic not auto-created', { topic: name, reason: refused.errorMessage });
    return missing(name, refused.errorCode);
  }
  let t: TopicInfo;
  try {
    t = await broker.storage.createTopic(name, broker.config.numPartitions, {});
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    // Another broker on the same database created it first (the engine refused the duplicate).
    const now = await broker.storage.topic(name);
    if (now) return now;
    // A full disk, say: Kafka's answer while a topic is not ready yet, which clients retry.
    broker.logger.error('auto-creating a topic failed', { topic: name, err });
    return missing(name, ErrorCode.LEADER_NOT_AVAILABLE);
  }
  broker.logger.info('auto-created topic', { topic: name, partitions: t.partitionCount });
  return t;
}

/**
 * v10-11 requests may carry topic ids and null names but their responses cannot (Name is nullable
 * from v12): Kafka refuses such a request (KafkaApis.handleTopicMetadataRequest: "Topic IDs are not
 * supported in requests for version N", "Topic name can not be null for version N") with
 * MetadataRequest.getErrorResponse: every topic INVALID_REQUEST, a null name sent as "", no brokers.
 */
function refuseTopicIdsBeforeV12(req: MetadataRequest): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    topics: req.topics!.map((t) => ({
      errorCode: ErrorCode.INVALID_REQUEST,
      name: t.name ?? '',
      topicId: t.topicId ?? ZERO_UUID,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    })),
    clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

export const metadataHandler: ApiHandler<MetadataRequest, MetadataResponse> = {
  apiKey: ApiKey.Metadata,
  minVersion: 0,
  maxVersion: 12,
  async handle(ctx, req) {
    const { broker, apiVersion } = ctx;
    const all = req.topics === null || (apiVersion === 0 && req.topics.length === 0);
    if (
      !all &&
      apiVersion < 12 &&
      req.topics!.some((t) => t.name === null || (t.topicId !== undefined && t.topicId !== ZERO_UUID))
    ) {
      return refuseTopicIdsBeforeV12(req);
    }
    // KafkaApis.handleTopicMetadataRequest: a topic the principal may not DESCRIBE is left out of
    // "all topics" and answered TOPIC_AUTHORIZATION_FAILED when named (without its id, so its
    // existence is not told); auto-creation needs CREATE on the cluster or on the topic.
    const describable = (name: string) => may(ctx, 'DESCRIBE', 'TOPIC', name);
    let mayCreate: boolean | undefined;
    const creatable = (name: string) =>
      (mayCreate ??= mayOnCluster(ctx, 'CREATE')) || may(ctx, 'CREATE', 'TOPIC', name);
    let topics: MetadataResponseTopic[];
    if (all) {
      topics = (await broker.storage.listTopics())
        .filter((t) => describable(t.name))
        .map((t) => topicMetadata(broker, t));
    } else {
      const allowCreate = broker.config.autoCreateTopics && (apiVersion < 4 || req.allowAutoTopicCreation !== false);
      const budget = new PartitionBudget(broker);
      const answer = async (rt: NonNullable<MetadataRequest['topics']>[number]): Promise<MetadataResponseTopic> => {
        // A non-zero id wins over the name, as in KafkaApis (useTopicId): the Java admin's
        // describeTopics(TopicCollection.ofTopicIds(...)) sends the id with the name "", not null.
        const hasId = rt.topicId !== undefined && rt.topicId !== ZERO_UUID;
        if (hasId || rt.name === null || rt.name === undefined) {
          const byId = hasId ? await broker.storage.topicById(rt.topicId!) : undefined;
          if (!byId) return missing(null, ErrorCode.UNKNOWN_TOPIC_ID, rt.topicId);
          // Topic ids are not secret (Kafka): the id comes back, the name does not.
          if (!describable(byId.name)) return missing(null, ErrorCode.TOPIC_AUTHORIZATION_FAILED, byId.topicId);
          return topicMetadata(broker, byId);
        }
        if (!describable(rt.name)) return missing(rt.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        const existing = await broker.storage.topic(rt.name);
        if (existing) return topicMetadata(broker, existing);
        if (topicNameError(rt.name)) return missing(rt.name, ErrorCode.INVALID_TOPIC_EXCEPTION);
        if (!allowCreate || isReservedTopic(rt.name)) return missing(rt.name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (!creatable(rt.name)) return missing(rt.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        const created = await autoCreateTopic(broker, rt.name, budget);
        // Created, but not told in this answer: Kafka 4 forwards the creation to its controller and
        // answers UNKNOWN_TOPIC_OR_PARTITION without partitions meanwhile
        // (AutoTopicCreationManager.sendCreateTopicRequest); clients retry and the next Metadata
        // shows the topic. kafka-go's delete-topics tests count on it: they read a deleted topic's
        // partitions with auto-creation on and expect none.
        return 'partitionCount' in created ? missing(rt.name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) : created;
      };
      topics = [];
      for (const rt of req.topics!) topics.push(await answer(rt));
    }
    // KIP-430 (v8+): the operations allowed, when asked for; the cluster's only up to v10.
    if (apiVersion >= 8 && req.includeTopicAuthorizedOperations) {
      for (const t of topics)
        if (t.errorCode === ErrorCode.NONE && t.name)
          t.topicAuthorizedOperations = authorizedOperations(ctx, 'TOPIC', t.name);
    }
    let clusterOperations = AUTHORIZED_OPERATIONS_OMITTED;
    if (apiVersion >= 8 && apiVersion <= 10 && req.includeClusterAuthorizedOperations)
      clusterOperations = mayOnCluster(ctx, 'DESCRIBE') ? clusterAuthorizedOperations(ctx) : 0;
    return {
      throttleTimeMs: 0,
      brokers: liveBrokers(ctx),
      clusterId: broker.identity.clusterId,
      controllerId: controllerId(broker),
      topics,
      clusterAuthorizedOperations: clusterOperations,
    };
  },
};
