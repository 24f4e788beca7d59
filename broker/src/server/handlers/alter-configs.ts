// AlterConfigs (key 33): v0-2 — replaces a topic's whole set of overrides (configs not named are
// reset to their defaults, as in Kafka). IncrementalAlterConfigs (key 44): v0-1 — SET, DELETE,
// APPEND and SUBTRACT on single configs (KIP-339). Broker configs are static (environment).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { AlterConfigsRequest, AlterConfigsResponse, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../protocol/messages';
import { TOPIC_CONFIGS, topicConfig, validateTopicConfig } from '../../storage/topic-config';
import type { ApiHandler, BrokerContext } from '../context';
import { ResourceType } from './describe-configs';

/** IncrementalAlterConfigs operations */
export const ConfigOperation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

interface Outcome {
  errorCode: number;
  errorMessage: string | null;
}
const ok: Outcome = { errorCode: ErrorCode.NONE, errorMessage: null };

interface Resource {
  resourceType: number;
  resourceName: string;
}

/** Validates then applies (unless validateOnly) the new override set of one resource; its response entry. */
function apply(
  broker: BrokerContext,
  res: Resource,
  next: (current: Record<string, string>) => Record<string, string> | Outcome,
  validateOnly: boolean,
): Outcome & Resource {
  return { ...outcome(broker, res.resourceType, res.resourceName, next, validateOnly), resourceType: res.resourceType, resourceName: res.resourceName };
}

function outcome(broker: BrokerContext, resourceType: number, name: string, next: (current: Record<string, string>) => Record<string, string> | Outcome, validateOnly: boolean): Outcome {
  if (resourceType === ResourceType.BROKER) {
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'broker configs are set by environment variables or flags at start-up' };
  }
  if (resourceType !== ResourceType.TOPIC) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `resource type ${resourceType} is not supported` };
  const topic = broker.storage.topic(name);
  if (!topic) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `no topic named ${name}` };
  const wanted = next(topic.configs);
  if ('errorCode' in wanted) return wanted as Outcome;
  for (const [k, v] of Object.entries(wanted)) {
    const err = validateTopicConfig(k, v);
    if (err) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: err };
  }
  if (!validateOnly) {
    const remove = Object.keys(topic.configs).filter((k) => !(k in wanted));
    broker.storage.alterTopicConfigs(name, wanted, remove);
    broker.logger.info('altered topic configs', { topic: name, configs: wanted });
  }
  return ok;
}

export const alterConfigsHandler: ApiHandler<AlterConfigsRequest, AlterConfigsResponse> = {
  apiKey: ApiKey.AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
  handle({ broker }, req) {
    const responses = req.resources.map((res) =>
      apply(broker, res, () => Object.fromEntries(res.configs.filter((c) => c.value !== null).map((c) => [c.name, c.value!])), req.validateOnly),
    );
    return { throttleTimeMs: 0, responses };
  },
};

const isList = (name: string) => name === 'cleanup.policy';

/** The overrides after applying KIP-339 operations in order, or why they can't be applied. */
function applyOperations(current: Record<string, string>, ops: readonly { name: string; configOperation: number; value: string | null }[]): Record<string, string> | Outcome {
  const next = { ...current };
  for (const c of ops) {
    if (!TOPIC_CONFIGS[c.name]) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: validateTopicConfig(c.name, null) };
    switch (c.configOperation) {
      case ConfigOperation.SET:
        if (c.value === null) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `SET ${c.name} needs a value` };
        next[c.name] = c.value;
        break;
      case ConfigOperation.DELETE:
        delete next[c.name];
        break;
      case ConfigOperation.APPEND:
      case ConfigOperation.SUBTRACT: {
        if (!isList(c.name)) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `${c.name} is not a list config; APPEND/SUBTRACT apply to lists` };
        const items = topicConfig(next, c.name).split(',').filter(Boolean);
        const given = (c.value ?? '').split(',').filter(Boolean);
        const merged = c.configOperation === ConfigOperation.APPEND ? [...new Set([...items, ...given])] : items.filter((i) => !given.includes(i));
        next[c.name] = merged.join(',');
        break;
      }
      default:
        return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `unknown config operation ${c.configOperation}` };
    }
  }
  return next;
}

export const incrementalAlterConfigsHandler: ApiHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  apiKey: ApiKey.IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  handle({ broker }, req) {
    const responses = req.resources.map((res) => apply(broker, res, (current) => applyOperations(current, res.configs), req.validateOnly));
    return { throttleTimeMs: 0, responses };
  },
};
