// CreateTopics (key 19): v0-7 (v0-1, gone in Kafka 4.0 by KIP-896, are v2 without the throttle
// time; v0 has no validateOnly and no error message in the response). One broker, so replication factor 1 (or -1, the default) only;
// validate_only checks without creating; v5+ returns the resulting configs, v7 the topic id.
// Partition bounds: partition-limits.ts. controller_mutation_rate (KIP-599): each topic that passed
// every check is charged its partitions, validate_only too as in Kafka's controller; strict (refused
// with THROTTLING_QUOTA_EXCEEDED) from v6 (quotas/controller-mutation-quotas.ts). A big request is
// worked in slices of at most TOPICS_PER_SLICE topics / PARTITIONS_PER_SLICE partitions (fewer
// when topics are dear: SliceSizer), each one storage transaction, with a turn of the event loop
// between them (yield-slices.ts), so other
// clients are answered while it runs (issues 11, 29); each topic still succeeds or fails alone.
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
import type { TopicInfo } from '../../storage/storage';
import { validateTopicConfigs } from '../../storage/topic-config';
import { brokerConfigLayers } from '../broker-configs';
import { topicConfigEntries } from '../config-entries';
import { authorizedNames, may, mayOnCluster } from './authz';
import type { ApiHandler, BrokerContext } from '../context';
import { PartitionBudget, requestPartitionsRefusal, topicPartitionsRefusal } from '../partition-limits';
import type { Refusal } from '../partition-limits';
import { isReservedTopic, topicNameError } from '../topic-names';
import {
  FIRST_SLICE_TOPICS,
  nextTurn,
  PARTITIONS_PER_SLICE,
  sized,
  SliceSizer,
  slicesOf,
  TOPICS_PER_SLICE,
} from '../yield-slices';
import { catalogChanges } from '../../keyed-serial';
import type { ControllerMutationQuota } from '../quotas/controller-mutation-quotas';
import { mutationThrottleMs, requestMutationQuota } from '../quotas/request-mutation-quota';

/** CreateTopics v6+ answers THROTTLING_QUOTA_EXCEEDED per topic (KIP-599); older versions are throttled only. */
const STRICT_QUOTA_SINCE_VERSION = 6;

type Check = { errorCode: number; errorMessage: string } | { partitions: number; configs: Record<string, string> };

async function check(broker: BrokerContext, t: CreateTopicsRequestCreatableTopic): Promise<Check> {
  const bad = (errorCode: number, errorMessage: string) => ({ errorCode, errorMessage });
  const nameErr = topicNameError(t.name);
  if (nameErr) return bad(ErrorCode.INVALID_TOPIC_EXCEPTION, nameErr);
  if (await broker.storage.topic(t.name)) return bad(ErrorCode.TOPIC_ALREADY_EXISTS, `topic ${t.name} already exists`);
  // Kafka's refusal for its own metadata topic (ControllerApis.createTopics), for every internal name
  // (__consumer_offsets exists once a group was looked up: TOPIC_ALREADY_EXISTS above, as Kafka).
  if (isReservedTopic(t.name))
    return bad(
      ErrorCode.INVALID_REQUEST,
      `Creation of internal topic ${t.name} is prohibited (minnow keeps its state in its database).`,
    );
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
    const budget = new PartitionBudget(broker, req.validateOnly, true);
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
    const success = (name: string, topicId: string, partitions: number, configs: Record<string, string>) => {
      const configsVisible = may(ctx, 'DESCRIBE_CONFIGS', 'TOPIC', name);
      return {
        name,
        topicId,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        topicConfigErrorCode: configsVisible ? ErrorCode.NONE : ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        numPartitions: partitions,
        replicationFactor: 1,
        configs: configsVisible ? resultConfigs(configs) : [],
      };
    };
    // One slice: its checks in request order, then its topics written together (one transaction).
    const createSlice = async (slice: CreateTopicsRequestCreatableTopic[]) => {
      const answers: (CreateTopicsResponseCreatableTopicResult | undefined)[] = [];
      const planned: Planned[] = [];
      for (const t of slice) {
        if (answered.has(t.name)) continue;
        answered.add(t.name);
        if (counts.get(t.name)! > 1) {
          answers.push(
            failed(
              t.name,
              ErrorCode.INVALID_REQUEST,
              `topic ${t.name} is named ${counts.get(t.name)} times in the request; it was not created`,
            ),
          );
          continue;
        }
        if (!creatable.has(t.name)) {
          answers.push(unauthorized(t.name));
          continue;
        }
        const c = await check(broker, t);
        const refused = 'errorCode' in c ? c : await claim(broker, t.name, c.partitions, budget, quota);
        if (refused) {
          answers.push(failed(t.name, refused.errorCode, refused.errorMessage));
          continue;
        }
        planned.push({ at: answers.length, name: t.name, ...(c as Checked) });
        answers.push(undefined);
      }
      const stored = req.validateOnly ? planned.map(() => ZERO_UUID) : await store(broker, planned);
      budget.stored();
      planned.forEach((p, i) => {
        const r = stored[i]!;
        answers[p.at] =
          typeof r === 'string'
            ? success(p.name, r, p.partitions, p.configs)
            : failed(p.name, r.errorCode, r.errorMessage);
      });
      return answers as CreateTopicsResponseCreatableTopicResult[];
    };
    const topics: CreateTopicsResponseCreatableTopicResult[] = [];
    const sizer = new SliceSizer(FIRST_SLICE_TOPICS, TOPICS_PER_SLICE);
    const slices = slicesOf(
      req.topics,
      () => sizer.next,
      (t) => topicPartitions(t, broker.config.numPartitions),
      PARTITIONS_PER_SLICE,
    );
    let first = true;
    for (const slice of slices) {
      if (!first) await nextTurn();
      first = false;
      // A slice's exists-checks, budget claims and creation run as one catalog change
      // (keyed-serial.ts): no other request of this broker creates its topics or claims in between.
      topics.push(
        ...(await sized(sizer, slice.length, () => catalogChanges.run(broker.storage, () => createSlice(slice)))),
      );
    }
    return { throttleTimeMs: mutationThrottleMs(ctx, quota), topics };
  },
};

type Checked = { partitions: number; configs: Record<string, string> };
type Planned = Checked & { name: string; at: number };

/** The budget's and the mutation quota's refusal of a checked topic, if any. */
async function claim(
  broker: BrokerContext,
  name: string,
  partitions: number,
  budget: PartitionBudget,
  quota: ControllerMutationQuota,
): Promise<Refusal | undefined> {
  const refused = await budget.claim(name, partitions);
  if (refused) return refused;
  const throttled = quota.record(partitions, broker.now());
  if (throttled) return { errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, errorMessage: throttled.message };
  return undefined;
}

/** Writes a slice's topics in one storage call: each one's topic id, or why it was not created. */
async function store(broker: BrokerContext, planned: readonly Planned[]): Promise<(string | Refusal)[]> {
  if (planned.length === 0) return [];
  let results: (TopicInfo | StorageError)[];
  try {
    results = await broker.storage.createTopics(
      planned.map((p) => ({ name: p.name, partitionCount: p.partitions, configs: p.configs })),
    );
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    results = planned.map(() => err); // the slice's commit failed: none of its topics was stored
  }
  const out: (string | Refusal)[] = [];
  for (const [i, r] of results.entries()) {
    const p = planned[i]!;
    if (!(r instanceof StorageError)) {
      broker.logger.info('created topic', { topic: p.name, partitions: p.partitions, configs: p.configs });
      out.push(r.topicId);
    } else if (await broker.storage.topic(p.name)) {
      // Another broker on the same database created it first: the engine refused the duplicate.
      out.push({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `topic ${p.name} already exists` });
    } else {
      out.push({
        errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
        errorMessage: `topic ${p.name} was not created: ${r.message}`,
      });
    }
  }
  return out;
}

/** The partitions a topic asks for, as Kafka counts them (validateTotalNumberOfPartitions). */
function topicPartitions(t: CreateTopicsRequestCreatableTopic, defaultPartitions: number): number {
  if (t.assignments.length > 0) return t.assignments.length;
  if (t.numPartitions === -1) return defaultPartitions;
  return Math.max(0, t.numPartitions);
}

/** Partitions asked for in all, as Kafka counts them (validateTotalNumberOfPartitions). */
function requestedPartitions(req: CreateTopicsRequest, defaultPartitions: number): number {
  let total = 0;
  for (const t of req.topics) total += topicPartitions(t, defaultPartitions);
  return total;
}
