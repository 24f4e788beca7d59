// DescribeConfigs (key 32): v0-4. Topics report every known config with its source (override or
// default) and, on request, synonyms (v1+) and documentation (v3+); the broker resource reports
// the start-up settings read-only. v0 (sarama before 1.41 by default; gone in Kafka 4.0, KIP-896)
// has isDefault instead of configSource: true for a value from the defaults (DEFAULT_CONFIG), as
// Kafka 1.1-2.5 set it (KIP-133). Kafka 2.6-3.9 always send false there, a regression of the
// KAFKA-9432 rewrite (their broker never sets the field), which we do not copy.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DescribeConfigsRequest, DescribeConfigsResponse, DescribeConfigsResponseDescribeConfigsResult } from '../../protocol/messages';
import { brokerConfigEntries, ConfigEntry, ConfigSource, topicConfigEntries } from '../config-entries';
import type { ApiHandler } from '../context';

/** org.apache.kafka.common.config.ConfigResource.Type */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

export const describeConfigsHandler: ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> = {
  apiKey: ApiKey.DescribeConfigs,
  minVersion: 0,
  maxVersion: 4,
  handle({ broker }, req) {
    const results = req.resources.map((res): DescribeConfigsResponseDescribeConfigsResult => {
      const fail = (errorCode: number, errorMessage: string) => ({ errorCode, errorMessage, resourceType: res.resourceType, resourceName: res.resourceName, configs: [] });
      let entries: ConfigEntry[];
      if (res.resourceType === ResourceType.TOPIC) {
        const topic = broker.storage.topic(res.resourceName);
        if (!topic) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no topic named ${res.resourceName}`);
        entries = topicConfigEntries(topic.configs);
      } else if (res.resourceType === ResourceType.BROKER) {
        if (res.resourceName !== '' && res.resourceName !== String(broker.identity.nodeId)) {
          return fail(ErrorCode.INVALID_REQUEST, `broker ${res.resourceName} is not this broker (${broker.identity.nodeId})`);
        }
        entries = brokerConfigEntries(broker.config);
      } else {
        return fail(ErrorCode.INVALID_REQUEST, `resource type ${res.resourceType} is not supported; use TOPIC (2) or BROKER (4)`);
      }
      const keys = res.configurationKeys;
      if (keys) entries = entries.filter((e) => keys.includes(e.name));
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
    });
    return { throttleTimeMs: 0, results };
  },
};
