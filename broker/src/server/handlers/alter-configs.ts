// AlterConfigs (key 33): v0-2 — replaces a resource's whole set of configs (those not named are
// reset to their defaults, as in Kafka). IncrementalAlterConfigs (key 44): v0-1 — SET, DELETE,
// APPEND and SUBTRACT on single configs (KIP-339). TOPIC resources take every Kafka topic config
// (topic-config.ts); BROKER resources (node id, or "" cluster-wide) the dynamic broker configs
// (broker-configs.ts); GROUP resources a group's own configs (groups/group-configs.ts). Checks, texts and codes follow Kafka's ConfigAdminManager (broker side)
// and ConfigurationControlManager (controller side).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  AlterConfigsRequest,
  AlterConfigsResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
} from '../../protocol/messages';
import { ConfigType } from '../../storage/config-def';
import { TOPIC_CONFIGS, validateTopicConfigs } from '../../storage/topic-config';
import { BROKER_CONFIGS, validateBrokerConfigs } from '../broker-configs';
import { forgetBrokerTopicDefaults } from '../topic-defaults-memo';
import { StorageError } from '../../storage/storage';
import type { ApiHandler, BrokerContext } from '../context';
import { configsAuthorizationError, ResourceType } from './describe-configs';
import { KeyedSerial } from '../../keyed-serial';
import { groupConfigResource, validateGroupConfigs } from '../../groups/group-configs';

/** IncrementalAlterConfigs operations (AlterConfigOp.OpType) */
export const ConfigOperation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

interface Outcome {
  errorCode: number;
  errorMessage: string | null;
}
const ok: Outcome = { errorCode: ErrorCode.NONE, errorMessage: null };
const fail = (errorCode: number, errorMessage: string): Outcome => ({ errorCode, errorMessage });

interface Resource {
  resourceType: number;
  resourceName: string;
  configs: readonly { name: string; value: string | null }[];
}

/** The new configs of a resource, computed from its current ones, or why the request is refused. */
type Next = (current: Record<string, string>, resourceType: number) => { configs: Record<string, string> } | Outcome;

/** ConfigAdminManager.preprocess: checks made before anything is looked up. */
function preprocess<C extends { name: string; value: string | null }>(
  res: { configs: readonly C[] },
  nullAllowed: (c: C) => boolean,
): Outcome | null {
  const names = res.configs.map((c) => c.name);
  if (new Set(names).size !== names.length)
    return fail(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
  const nulls = res.configs.filter((c) => c.value === null && !nullAllowed(c)).map((c) => c.name);
  if (nulls.length > 0) return fail(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
  return null;
}

/**
 * One change per resource at a time on this broker: the next configs are computed from the current
 * ones (IncrementalAlterConfigs' APPEND/SUBTRACT/DELETE), so a read and its write must not
 * interleave with another request's (keyed-serial.ts).
 */
const resourceChanges = new KeyedSerial<string>();

/** Validates the resource's next configs and stores them unless validateOnly. */
function alterResource(broker: BrokerContext, res: Resource, next: Next, validateOnly: boolean): Promise<Outcome> {
  const key = `${res.resourceType}\u0000${res.resourceName}`;
  if (res.resourceType === ResourceType.TOPIC)
    return resourceChanges.run(key, () => alterTopic(broker, res.resourceName, next, validateOnly));
  if (res.resourceType === ResourceType.BROKER)
    return resourceChanges.run(key, () => alterBroker(broker, res.resourceName, next, validateOnly));
  if (res.resourceType === ResourceType.GROUP)
    return resourceChanges.run(key, () => alterGroup(broker, res.resourceName, next, validateOnly));
  return Promise.resolve(fail(ErrorCode.INVALID_REQUEST, `Unknown resource type ${res.resourceType}`));
}

async function alterTopic(broker: BrokerContext, name: string, next: Next, validateOnly: boolean): Promise<Outcome> {
  if (name === '') return fail(ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.');
  const topic = await broker.storage.topic(name);
  const wanted = next(topic?.configs ?? {}, ResourceType.TOPIC);
  if (!('configs' in wanted)) return wanted;
  // Kafka validates the configs first, then whether the topic exists.
  const check = validateTopicConfigs(wanted.configs);
  if (!check.ok) return fail(ErrorCode.INVALID_CONFIG, check.message);
  if (!topic) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
  if (!validateOnly) {
    const remove = Object.keys(topic.configs).filter((k) => !(k in check.configs));
    const failed = await storageFailure(broker, () => broker.storage.alterTopicConfigs(name, check.configs, remove));
    if (failed) return failed;
    broker.logger.info('altered topic configs', { topic: name, configs: check.configs, removed: remove });
  }
  return ok;
}

async function alterBroker(broker: BrokerContext, name: string, next: Next, validateOnly: boolean): Promise<Outcome> {
  const nodeId = broker.identity.nodeId;
  if (name !== '') {
    if (!/^[+-]?\d+$/.test(name))
      return fail(ErrorCode.INVALID_REQUEST, `Node id must be an integer, but it is: ${name}`);
    if (Number(name) !== nodeId)
      return fail(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${nodeId}, but received ${name}`);
  }
  const resource = name === '' ? '' : String(nodeId);
  const current = await broker.storage.brokerConfigs(resource);
  const wanted = next(current, ResourceType.BROKER);
  if (!('configs' in wanted)) return wanted;
  const check = validateBrokerConfigs(wanted.configs);
  if (!check.ok) return fail(ErrorCode.INVALID_REQUEST, check.message);
  if (!validateOnly) {
    const remove = Object.keys(current).filter((k) => !(k in check.configs));
    const failed = await storageFailure(broker, () =>
      broker.storage.alterBrokerConfigs(resource, check.configs, remove),
    );
    // After the write (a Produce during it may have memoized the old values): the next Produce reads the change.
    forgetBrokerTopicDefaults(broker.storage);
    if (failed) return failed;
    broker.logger.info('altered dynamic broker configs', {
      resource: resource === '' ? 'cluster default' : resource,
      configs: check.configs,
      removed: remove,
    });
  }
  return ok;
}

/** A group's own configs (GROUP resource, groups/group-configs.ts); the coordinator uses them at once. */
async function alterGroup(broker: BrokerContext, groupId: string, next: Next, validateOnly: boolean): Promise<Outcome> {
  if (groupId === '') return fail(ErrorCode.INVALID_REQUEST, 'Group id must not be empty');
  const resource = groupConfigResource(groupId);
  const current = await broker.storage.brokerConfigs(resource);
  const wanted = next(current, ResourceType.GROUP);
  if (!('configs' in wanted)) return wanted;
  const problem = validateGroupConfigs(wanted.configs, {
    ...broker.groups.consumer.bounds,
    ...broker.shareGroups.bounds,
  });
  if (problem) return fail(ErrorCode.INVALID_CONFIG, problem);
  if (!validateOnly) {
    const remove = Object.keys(current).filter((k) => !(k in wanted.configs));
    const failed = await storageFailure(broker, () =>
      broker.storage.alterBrokerConfigs(resource, wanted.configs, remove),
    );
    if (failed) return failed;
    broker.groups.consumer.groupConfigsChanged(groupId, wanted.configs);
    broker.shareGroups.groupConfigsChanged(groupId, wanted.configs);
    broker.logger.info('altered group configs', { groupId, configs: wanted.configs, removed: remove });
  }
  return ok;
}

/** Every resource once (Kafka refuses both copies of a repeated one), then each on its own. */
async function alterAll<R extends Resource>(
  resources: readonly R[],
  handle: (res: R) => Outcome | Promise<Outcome>,
): Promise<(Outcome & { resourceType: number; resourceName: string })[]> {
  const key = (r: Resource) => `${r.resourceType}\u0000${r.resourceName}`;
  const counts = new Map<string, number>();
  for (const r of resources) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  const out = [];
  for (const r of resources) {
    const outcome =
      counts.get(key(r))! > 1
        ? fail(ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.')
        : await handle(r);
    out.push({ ...outcome, resourceType: r.resourceType, resourceName: r.resourceName });
  }
  return out;
}

export const alterConfigsHandler: ApiHandler<AlterConfigsRequest, AlterConfigsResponse> = {
  apiKey: ApiKey.AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const { broker } = ctx;
    const responses = await alterAll(req.resources, (res) => {
      const unauthorized = configsAuthorizationError(ctx, res.resourceType, res.resourceName, 'ALTER_CONFIGS');
      if (unauthorized) return unauthorized;
      // The legacy API has no BROKER_LOGGER support in Kafka either ("Unknown resource type 8").
      const refused = preprocess(res, () => false);
      if (refused) return refused;
      return alterResource(
        broker,
        res,
        () => ({ configs: Object.fromEntries(res.configs.map((c) => [c.name, c.value!])) }),
        req.validateOnly,
      );
    });
    return { throttleTimeMs: 0, responses };
  },
};

/** The type of a config of a resource, for APPEND/SUBTRACT (only LIST configs split). */
function configTypeOf(resourceType: number, name: string): number | undefined {
  return resourceType === ResourceType.TOPIC ? TOPIC_CONFIGS[name]?.type : BROKER_CONFIGS[name]?.type;
}

function defaultOf(resourceType: number, name: string): string | null {
  return resourceType === ResourceType.TOPIC
    ? (TOPIC_CONFIGS[name]?.default ?? null)
    : (BROKER_CONFIGS[name]?.kafkaDefault ?? null);
}

/** ConfigurationControlManager.incrementalAlterConfigResource: the ops applied in order. */
function applyOperations(ops: readonly { name: string; configOperation: number; value: string | null }[]): Next {
  return (current, resourceType) => {
    const next = { ...current };
    for (const c of ops) {
      switch (c.configOperation) {
        case ConfigOperation.SET:
          next[c.name] = c.value!;
          break;
        case ConfigOperation.DELETE:
          delete next[c.name];
          break;
        case ConfigOperation.APPEND:
        case ConfigOperation.SUBTRACT: {
          const op = OP_NAMES[c.configOperation];
          if (configTypeOf(resourceType, c.name) !== ConfigType.LIST) {
            return fail(ErrorCode.INVALID_CONFIG, `Can't ${op} to key ${c.name} because its type is not LIST.`);
          }
          const items = (next[c.name] ?? defaultOf(resourceType, c.name) ?? '').split(',').filter((s) => s !== '');
          const given = javaSplit(c.value!);
          if (c.configOperation === ConfigOperation.APPEND) {
            for (const v of given) if (!items.includes(v)) items.push(v);
          } else {
            for (const v of given) {
              const i = items.indexOf(v);
              if (i >= 0) items.splice(i, 1);
            }
          }
          next[c.name] = items.join(',');
          break;
        }
        default:
          return fail(ErrorCode.INVALID_REQUEST, `Unknown operations type ${c.configOperation}`);
      }
    }
    return { configs: next };
  };
}

/** String.split(","): trailing empty strings dropped. */
function javaSplit(s: string): string[] {
  const parts = s.split(',');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

export const incrementalAlterConfigsHandler: ApiHandler<
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse
> = {
  apiKey: ApiKey.IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const { broker } = ctx;
    const responses = await alterAll(req.resources, (res) => {
      const unauthorized = configsAuthorizationError(ctx, res.resourceType, res.resourceName, 'ALTER_CONFIGS');
      if (unauthorized) return unauthorized;
      const refused = preprocess(res, (c) => c.configOperation === ConfigOperation.DELETE);
      if (refused) return refused;
      if (res.resourceType === ResourceType.BROKER_LOGGER) {
        // Kafka changes log4j levels here (KIP-412, not persisted); minnow has one level, set at start-up.
        return fail(
          ErrorCode.INVALID_REQUEST,
          `minnow's log level is set at start-up (LOG_LEVEL, now ${broker.logger.level}); it cannot be changed at runtime`,
        );
      }
      return alterResource(broker, res, applyOperations(res.configs), req.validateOnly);
    });
    return { throttleTimeMs: 0, responses };
  },
};

/** A storage failure (a full disk) is this resource's KAFKA_STORAGE_ERROR, not a closed connection. */
async function storageFailure(broker: BrokerContext, write: () => Promise<void>): Promise<Outcome | undefined> {
  try {
    await write();
    return undefined;
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    broker.logger.error('storing configs failed', { err });
    return fail(ErrorCode.KAFKA_STORAGE_ERROR, `storing the configs failed: ${err.message}`);
  }
}
