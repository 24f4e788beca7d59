// DescribeConfigs (key 32): v0-4. Topics report every Kafka topic config with its source (topic
// override, dynamic broker default or Kafka default) and, on request, synonyms (v1+) and
// documentation (v3+); a broker (node id) reports its settings and dynamic configs, "" the
// cluster-wide dynamic defaults only; BROKER_LOGGER reports minnow's one log level as "root".
// v0 (sarama before 1.41 by default; gone in Kafka 4.0, KIP-896) has isDefault instead of
// configSource: true for a value from the defaults (DEFAULT_CONFIG), as Kafka 1.1-2.5 set it
// (KIP-133). Kafka 2.6-3.9 always send false there, a regression of the KAFKA-9432 rewrite (their
// broker never sets the field), which we do not copy.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DescribeConfigsRequest,
  DescribeConfigsResponse,
  DescribeConfigsResponseDescribeConfigsResult,
} from '../../protocol/messages';
import { brokerConfigLayers, ConfigSource } from '../broker-configs';
import { CLEANER_STATE_KEY, cleanerStateEntry } from '../cleaner-report';
import { brokerConfigEntries, ConfigEntry, topicConfigEntries } from '../config-entries';
import type { ApiHandler, RequestContext } from '../context';
import { ConfigType } from '../../storage/config-def';
import { groupConfigEntries, groupConfigResource } from '../../groups/group-configs';
import { may, mayOnCluster } from './authz';

/** org.apache.kafka.common.config.ConfigResource.Type */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, GROUP: 32 } as const;

export const describeConfigsHandler: ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> = {
  apiKey: ApiKey.DescribeConfigs,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const { broker } = ctx;
    const describe = async (
      res: DescribeConfigsRequest['resources'][number],
    ): Promise<DescribeConfigsResponseDescribeConfigsResult> => {
      const fail = (errorCode: number, errorMessage: string) => ({
        errorCode,
        errorMessage,
        resourceType: res.resourceType,
        resourceName: res.resourceName,
        configs: [],
      });
      const refused = configsAuthorizationError(ctx, res.resourceType, res.resourceName, 'DESCRIBE_CONFIGS');
      if (refused) return fail(refused.errorCode, refused.errorMessage);
      let entries: ConfigEntry[];
      const layers = () => brokerConfigLayers(broker.storage, broker.config, broker.identity.nodeId);
      const nodeId = broker.identity.nodeId;
      if (res.resourceType === ResourceType.TOPIC) {
        const topic = await broker.storage.topic(res.resourceName);
        if (!topic) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no topic named ${res.resourceName}`);
        entries = topicConfigEntries(topic.configs, await layers());
      } else if (res.resourceType === ResourceType.BROKER) {
        if (res.resourceName !== '' && !/^[+-]?\d+$/.test(res.resourceName)) {
          return fail(ErrorCode.INVALID_REQUEST, `Broker id must be an integer, but it is: ${res.resourceName}`);
        }
        if (res.resourceName !== '' && Number(res.resourceName) !== nodeId) {
          return fail(
            ErrorCode.INVALID_REQUEST,
            `Unexpected broker id, expected ${nodeId} or empty string, but received ${res.resourceName}`,
          );
        }
        entries = brokerConfigEntries(await layers(), res.resourceName !== '', res.configurationKeys ?? []);
      } else if (res.resourceType === ResourceType.BROKER_LOGGER) {
        if (res.resourceName === '') return fail(ErrorCode.INVALID_REQUEST, 'Broker id must not be empty');
        if (!/^[+-]?\d+$/.test(res.resourceName))
          return fail(ErrorCode.INVALID_REQUEST, `Broker id must be an integer, but it is: ${res.resourceName}`);
        if (Number(res.resourceName) !== nodeId)
          return fail(
            ErrorCode.INVALID_REQUEST,
            `Unexpected broker id, expected ${nodeId} but received ${res.resourceName}`,
          );
        entries = [rootLogger(broker.logger.level)];
      } else if (res.resourceType === ResourceType.GROUP) {
        // A group's own configs (groups/group-configs.ts), the broker's value where it has none.
        const own = await broker.storage.brokerConfigs(groupConfigResource(res.resourceName));
        entries = groupConfigEntries(own, { ...broker.groups.consumer.bounds, ...broker.shareGroups.bounds }).map(
          (e) => ({
            name: e.name,
            value: e.value,
            readOnly: false,
            source: e.source,
            isSensitive: false,
            type: e.type === 'INT' ? ConfigType.INT : ConfigType.STRING,
            documentation: e.doc,
            synonyms: [{ name: e.name, value: e.value, source: e.source }],
          }),
        );
      } else {
        return fail(
          ErrorCode.INVALID_REQUEST,
          `resource type ${res.resourceType} is not supported; use TOPIC (2), BROKER (4), BROKER_LOGGER (8) or GROUP (32)`,
        );
      }
      const keys = res.configurationKeys;
      // Kafka: a null or empty key list means every config.
      if (keys && keys.length > 0) entries = entries.filter((e) => keys.includes(e.name));
      // minnow's compactor state, only when named (cleaner-report.ts; `minnow topic describe`).
      const topic =
        res.resourceType === ResourceType.TOPIC && keys?.includes(CLEANER_STATE_KEY)
          ? await broker.storage.topic(res.resourceName)
          : undefined;
      if (topic)
        entries.push(await cleanerStateEntry(broker.storage, nodeId, topic.name, topic.partitionCount, broker.now()));
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        resourceType: res.resourceType,
        resourceName: res.resourceName,
        configs: entries.map((e) => ({
          name: e.name,
          value: e.value,
          readOnly: e.readOnly,
          configSource: e.source,
          isDefault: e.source === ConfigSource.DEFAULT_CONFIG,
          isSensitive: e.isSensitive,
          synonyms: req.includeSynonyms ? e.synonyms : [],
          configType: e.type,
          documentation: req.includeDocumentation ? e.documentation : null,
        })),
      };
    };
    const results = await Promise.all(req.resources.map(describe));
    return { throttleTimeMs: 0, results };
  },
};

/**
 * ConfigHelper / KafkaApis: a topic's configs need DESCRIBE_CONFIGS (ALTER_CONFIGS to change) on
 * the topic, a broker's or its loggers' the same on the cluster; undefined when allowed (or the
 * resource type is unknown, which is refused later).
 */
export function configsAuthorizationError(
  ctx: RequestContext,
  resourceType: number,
  resourceName: string,
  operation: 'DESCRIBE_CONFIGS' | 'ALTER_CONFIGS',
): { errorCode: number; errorMessage: string } | undefined {
  if (resourceType === ResourceType.TOPIC) {
    if (may(ctx, operation, 'TOPIC', resourceName)) return undefined;
    return {
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      errorMessage: `Topic authorization failed: ${operation} on topic ${resourceName} is not allowed.`,
    };
  }
  if (resourceType === ResourceType.GROUP) {
    if (may(ctx, operation, 'GROUP', resourceName)) return undefined;
    return {
      errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
      errorMessage: `Group authorization failed: ${operation} on group ${resourceName} is not allowed.`,
    };
  }
  if (resourceType === ResourceType.BROKER || resourceType === ResourceType.BROKER_LOGGER) {
    if (mayOnCluster(ctx, operation)) return undefined;
    return {
      errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
      errorMessage: `Cluster authorization failed: ${operation} on the cluster is not allowed.`,
    };
  }
  return undefined;
}

/** Log4jController's view of minnow's single logger: the root logger and its level (log4j names). */
function rootLogger(level: string): ConfigEntry {
  return {
    name: 'root',
    value: level.toUpperCase(),
    readOnly: false,
    source: ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
    isSensitive: false,
    type: 0,
    documentation: null,
    synonyms: [],
  };
}
