// CreateTopics (key 19): v0-7 (v0-1, gone in Kafka 4.0 by KIP-896, are v2 without the throttle
// time; v0 has no validateOnly and no error message in the response). One broker, so replication factor 1 (or -1, the default) only;
// validate_only checks without creating; v5+ returns the resulting configs, v7 the topic id.
// Partition bounds: partition-limits.ts. controller_mutation_rate (KIP-599): each topic that passed
// every check is charged its partitions, validate_only too as in Kafka's controller; strict (refused
// with THROTTLING_QUOTA_EXCEEDED) from v6 (quotas/controller-mutation-quotas.ts). A big request is worked in slices that yield to the event
// loop (yield-slices.ts), so other clients are answered while it runs (issue 11).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  CreateTopicsRequest,
  CreateTopicsRequestCreatableTopic,
  CreateTopicsResponse,
  CreateTopicsResponseCreatableTopicResult,
} from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import { StorageError } from '../../storage/storage';
import { validateTopicConfigs } from '../../storage/topic-config';
import { brokerConfigLayers } from '../broker-configs';
import { topicConfigEntries } from '../config-entries';
import { authorizedNames, may, mayOnCluster } from './authz';
import type { ApiHandler, BrokerContext } from '../context';
import { PartitionBudget, requestPartitionsRefusal, topicPartitionsRefusal } from '../partition-limits';
import { isReservedTopic, topicNameError } from '../topic-names';
import { SliceClock } from '../yield-slices';
import { catalogChanges } from '../../keyed-serial';
import {
  ControllerMutationQuota,
  mutationThrottleMs,
  requestMutationQuota,
} from '../quotas/controller-mutation-quotas';

/** CreateTopics v6+ answers THROTTLING_QUOTA_EXCEEDED per topic (KIP-599); older versions are throttled only. */
const STRICT_QUOTA_SINCE_VERSION = 6;

type Check = { errorCode: number; errorMessage: string } | { partitions: number; configs: Record<string, string> };

async function check(broker: BrokerContext, t: CreateTopicsRequestCreatableTopic): Promise<Check> {
  const bad = (errorCode: number, errorMessage: string) => ({ errorCode, errorMessage });
  const nameErr = topicNameError(t.name);
  if (nameErr) return bad(ErrorCode.INVALID_TOPIC_EXCEPTION, nameErr);
  // Kafka's refusal for its own metadata topic (ControllerApis.createTopics), for every internal name.
  if (isReservedTopic(t.name))
    return bad(
      ErrorCode.INVALID_REQUEST,
      `Creation of internal topic ${t.name} is prohibited (minnow keeps its state in its database).`,
    );
  if (await broker.storage.topic(t.name)) return bad(ErrorCode.TOPIC_ALREADY_EXISTS, `topic ${t.name} already exists`);
  if (t.replicationFactor !== -1 && t.replicationFactor !== 1) {
    return bad(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `replication factor ${t.replicationFactor} is not possible: minnow is a single broker, use 1`,
    );
  }
  let partitions = t.numPartitions === -1 ? broker.config.numPartitions : t.numPartitions;
  if (t.assignments.length > 0) {
    if (t.numPartitions !== -1)
      return bad(ErrorCode.INVALID_REQUEST, 'give either numPartitions or assignments, not both');
    const nodeId = broker.identity.nodeId;
    if (t.assignments.some((a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== nodeId)) {
      return bad(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `every partition must be assigned to broker ${nodeId} alone`);
    }
    partitions = t.assignments.length;
  }
  const tooMany = topicPartitionsRefusal(broker.config, t.name, partitions);
  if (tooMany) return tooMany;
  // The same checks and texts as AlterConfigs (Kafka's ControllerConfigurationValidator).
  const nulls = t.configs.filter((c) => c.value === null).map((c) => c.name);
  if (nulls.length > 0)
    return bad(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(',')}`);
  const checked = validateTopicConfigs(Object.fromEntries(t.configs.map((c) => [c.name, c.value!])));
  if (!checked.ok) return bad(ErrorCode.INVALID_CONFIG, checked.message);
  return { partitions, configs: checked.configs };
}

export const createTopicsHandler: ApiHandler<CreateTopicsRequest, CreateTopicsResponse> = {
  apiKey: ApiKey.CreateTopics,
  minVersion: 0,
  maxVersion: 7,
  async handle(ctx, req) {
    const { broker } = ctx;
    // As Kafka's controller: a name given more than once is not created at all and gets one
    // INVALID_REQUEST result, whatever else is wrong with it.
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const answered = new Set<string>();
    const failed = (name: string, errorCode: number, errorMessage: string): CreateTopicsResponseCreatableTopicResult =>
      // Kafka sends an empty config list, not null, with a failure.
      ({
        name,
        topicId: ZERO_UUID,
        errorCode,
        errorMessage,
        topicConfigErrorCode: 0,
        numPartitions: -1,
        replicationFactor: -1,
        configs: [],
      });
    // ControllerApis.handleCreateTopics: CREATE on the cluster, or else on each topic; without
    // DESCRIBE_CONFIGS on a created topic its configs are not told (topicConfigErrorCode).
    const creatable = mayOnCluster(ctx, 'CREATE')
      ? new Set(counts.keys())
      : authorizedNames(ctx, 'CREATE', 'TOPIC', counts.keys());
    const unauthorized = (name: string) =>
      failed(
        name,
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        'Authorization failed: creating a topic needs CREATE on it or on the cluster.',
      );
    // Kafka 4.0 checks the partitions asked for in all (valid topics or not) before anything else,
    // and refuses the whole request (KAFKA-17870); topics the principal may not create do not count.
    const tooMany = requestPartitionsRefusal(
      broker.config,
      requestedPartitions(
        { ...req, topics: req.topics.filter((t) => creatable.has(t.name)) },
        broker.config.numPartitions,
      ),
    );
    if (tooMany) {
      return {
        throttleTimeMs: 0,
        topics: [...counts.keys()].map((name) =>
          counts.get(name)! === 1 && !creatable.has(name)
            ? unauthorized(name)
            : failed(name, tooMany.errorCode, tooMany.errorMessage),
        ),
      };
    }
    const budget = new PartitionBudget(broker, req.validateOnly);
    const quota = requestMutationQuota(ctx, STRICT_QUOTA_SINCE_VERSION);
    // The resulting configs (v5+), built once per distinct set of overrides: most topics of a big
    // request have none, and building the 30-odd entries was a third of each topic's cost.
    const layers = await brokerConfigLayers(broker.storage, broker.config, broker.identity.nodeId);
    const configsByOverrides = new Map<string, CreateTopicsResponseCreatableTopicResult['configs']>();
    const resultConfigs = (overrides: Record<string, string>) => {
      const key = JSON.stringify(Object.entries(overrides).sort());
      let configs = configsByOverrides.get(key);
      if (!configs) {
        configs = topicConfigEntries(overrides, layers).map((e) => ({
          name: e.name,
          value: e.value,
          readOnly: e.readOnly,
          configSource: e.source,
          isSensitive: e.isSensitive,
        }));
        configsByOverrides.set(key, configs);
      }
      return configs;
    };
    const clock = new SliceClock();
    const topics: CreateTopicsResponseCreatableTopicResult[] = [];
    for (const t of req.topics) {
      await clock.maybeYield();
      if (answered.has(t.name)) continue;
      answered.add(t.name);
      if (counts.get(t.name)! > 1) {
        topics.push(
          failed(
            t.name,
            ErrorCode.INVALID_REQUEST,
            `topic ${t.name} is named ${counts.get(t.name)} times in the request; it was not created`,
          ),
        );
        continue;
      }
      if (!creatable.has(t.name)) {
        topics.push(unauthorized(t.name));
        continue;
      }
      // The exists-check, the budget and the creation run as one catalog change (keyed-serial.ts):
      // no other request of this broker creates the topic or claims partitions in between.
      const created = await catalogChanges.run(broker.storage, () =>
        createOne(broker, t, budget, quota, !!req.validateOnly),
      );
      if ('errorCode' in created) {
        topics.push(failed(t.name, created.errorCode, created.errorMessage));
        continue;
      }
      const { topicId, partitions, configs } = created;
      const configsVisible = may(ctx, 'DESCRIBE_CONFIGS', 'TOPIC', t.name);
      topics.push({
        name: t.name,
        topicId,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        topicConfigErrorCode: configsVisible ? ErrorCode.NONE : ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        numPartitions: partitions,
        replicationFactor: 1,
        configs: configsVisible ? resultConfigs(configs) : [],
      });
    }
    return { throttleTimeMs: mutationThrottleMs(ctx, quota), topics };
  },
};

type Created =
  | { errorCode: number; errorMessage: string }
  | { partitions: number; configs: Record<string, string>; topicId: string };

async function createOne(
  broker: BrokerContext,
  t: CreateTopicsRequestCreatableTopic,
  budget: PartitionBudget,
  quota: ControllerMutationQuota,
  validateOnly: boolean,
): Promise<Created> {
  const c = await check(broker, t);
  if ('errorCode' in c) return c;
  const refused = await budget.claim(t.name, c.partitions);
  if (refused) return refused;
  const throttled = quota.record(c.partitions, broker.now());
  if (throttled) return { errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, errorMessage: throttled.message };
  if (validateOnly) return { ...c, topicId: ZERO_UUID };
  let topicId: string;
  try {
    topicId = (await broker.storage.createTopic(t.name, c.partitions, c.configs)).topicId;
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    // Another broker on the same database created it first: the engine refused the duplicate.
    if (await broker.storage.topic(t.name))
      return { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `topic ${t.name} already exists` };
    return {
      errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
      errorMessage: `topic ${t.name} was not created: ${err.message}`,
    };
  }
  broker.logger.info('created topic', { topic: t.name, partitions: c.partitions, configs: c.configs });
  return { ...c, topicId };
}

/** Partitions asked for in all, as Kafka counts them (validateTotalNumberOfPartitions). */
function requestedPartitions(req: CreateTopicsRequest, defaultPartitions: number): number {
  let total = 0;
  for (const t of req.topics) {
    if (t.assignments.length > 0) total += t.assignments.length;
    else if (t.numPartitions === -1) total += defaultPartitions;
    else if (t.numPartitions > 0) total += t.numPartitions;
  }
  return total;
}
