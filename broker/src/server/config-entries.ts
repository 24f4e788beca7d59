// Topic and broker configs as DescribeConfigs / CreateTopics v5+ report them, filled the way
// Kafka's ConfigHelper fills them: value, source, synonyms (precedence order), readOnly,
// configType and documentation.
import { ConfigType } from '../storage/config-def';
import { REMOVED_IN_KAFKA_4, TOPIC_CONFIG_NAMES, TOPIC_CONFIGS } from '../storage/topic-config';
import { BROKER_CONFIGS, BrokerConfigLayers, ConfigSource, configSynonyms, Synonym } from './broker-configs';

export { ConfigSource, ConfigType };

export interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  source: number;
  isSensitive: boolean;
  type: number;
  documentation: string | null;
  /** Where the value comes from, highest precedence first (sent when includeSynonyms). */
  synonyms: Synonym[];
}

/** ConfigHelper.createTopicConfigEntry for every topic config, sorted by name as Kafka lists them. */
export function topicConfigEntries(overrides: Record<string, string>, layers: BrokerConfigLayers): ConfigEntry[] {
  const entries = TOPIC_CONFIG_NAMES.map((name) => {
    const def = TOPIC_CONFIGS[name]!;
    const serverName = def.serverSynonyms[0];
    const broker = serverName ? configSynonyms(serverName, layers) : [];
    const override = overrides[name];
    const synonyms =
      override !== undefined ? [{ name, value: override, source: ConfigSource.TOPIC_CONFIG }, ...broker] : broker;
    // A broker-level value set on the first server name (log.retention.ms set dynamically) is the
    // topic's default; Kafka's own defaults (log.retention.hours=168 ...) equal def.default.
    const first = broker[0];
    const brokerValue =
      first && first.name === serverName && first.source !== ConfigSource.DEFAULT_CONFIG ? first.value : null;
    return {
      name,
      value: override ?? brokerValue ?? def.default,
      readOnly: false,
      source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
      isSensitive: false,
      type: def.type,
      documentation: def.doc,
      synonyms,
    };
  });
  return entries.filter((e) => !REMOVED_IN_KAFKA_4.has(e.name) || e.source !== ConfigSource.DEFAULT_CONFIG);
}

/**
 * ConfigHelper.createBrokerConfigEntry. For a node id every config minnow reports; for the
 * cluster-wide default resource ("") only those set there, with only that layer as synonyms.
 * Kafka's inert dynamic configs (inert-broker-configs.ts) are listed where set or named (`named`:
 * the request's keys), custom ones (neither minnow's nor Kafka's) where set; a sensitive or custom
 * config's value is null everywhere, as Kafka sends it.
 */
export function brokerConfigEntries(
  layers: BrokerConfigLayers,
  perBroker: boolean,
  named: readonly string[] = [],
): ConfigEntry[] {
  const stored = new Set([...Object.keys(layers.perBroker), ...Object.keys(layers.clusterDefault)]);
  const listed = (name: string) => !BROKER_CONFIGS[name]?.inert || stored.has(name) || named.includes(name);
  const custom = [...stored].filter((name) => !BROKER_CONFIGS[name]);
  const names = perBroker
    ? [...Object.keys(BROKER_CONFIGS).filter(listed), ...custom].sort()
    : Object.keys(layers.clusterDefault).sort();
  const entries: ConfigEntry[] = names.map((name) => {
    const def = BROKER_CONFIGS[name];
    const sensitive = def ? def.sensitive === true : true;
    const all = configSynonyms(name, layers)
      .filter((s) => perBroker || s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
      .map((s) => (sensitive ? { ...s, value: null } : s));
    const value = perBroker
      ? (layers.perBroker[name] ?? layers.clusterDefault[name] ?? layers.startup[name] ?? def?.kafkaDefault ?? null)
      : layers.clusterDefault[name]!;
    return {
      name,
      value: sensitive ? null : value,
      readOnly: !def?.dynamic, // a custom config too, as Kafka (not one of its dynamic configs)
      source: all[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
      isSensitive: sensitive,
      type: def?.type ?? ConfigType.UNKNOWN,
      documentation: def?.doc ?? null,
      synonyms: all,
    };
  });
  // The log.* defaults of the topic configs Kafka 4.0 removed are listed only where set, as for topics.
  return entries.filter((e) => {
    const topicConfig = BROKER_CONFIGS[e.name]?.topicConfig;
    return !topicConfig || !REMOVED_IN_KAFKA_4.has(topicConfig) || e.source !== ConfigSource.DEFAULT_CONFIG;
  });
}
