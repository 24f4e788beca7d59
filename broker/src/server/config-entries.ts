// Topic and broker configs as DescribeConfigs / CreateTopics v5+ report them.
import { TOPIC_CONFIGS } from '../storage/topic-config';
import type { BrokerConfig } from './config';

/** org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource */
export const ConfigSource = { DYNAMIC_TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;
/** DescribeConfigsResponse.ConfigType (v3+) */
export const ConfigType = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, LIST: 7 } as const;

const TOPIC_CONFIG_TYPES: Record<string, number> = {
  'cleanup.policy': ConfigType.LIST,
  'retention.ms': ConfigType.LONG,
  'retention.bytes': ConfigType.LONG,
  'max.message.bytes': ConfigType.INT,
  'message.timestamp.type': ConfigType.STRING,
  'compression.type': ConfigType.STRING,
  'min.insync.replicas': ConfigType.INT,
  'segment.bytes': ConfigType.INT,
  'segment.ms': ConfigType.LONG,
  'unclean.leader.election.enable': ConfigType.BOOLEAN,
  'message.timestamp.difference.max.ms': ConfigType.LONG,
  'delete.retention.ms': ConfigType.LONG,
  'min.compaction.lag.ms': ConfigType.LONG,
};

export interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  source: number;
  isSensitive: boolean;
  type: number;
  documentation: string | null;
  /** Where a topic value would come from if the override were removed (includeSynonyms). */
  synonyms: { name: string; value: string | null; source: number }[];
}

export function topicConfigEntries(overrides: Record<string, string>): ConfigEntry[] {
  return Object.entries(TOPIC_CONFIGS).map(([name, def]) => {
    const set = overrides[name] !== undefined;
    const synonyms = [
      ...(set ? [{ name, value: overrides[name]!, source: ConfigSource.DYNAMIC_TOPIC_CONFIG }] : []),
      { name, value: def.default, source: ConfigSource.DEFAULT_CONFIG },
    ];
    return {
      name,
      value: set ? overrides[name]! : def.default,
      readOnly: false,
      source: set ? ConfigSource.DYNAMIC_TOPIC_CONFIG : ConfigSource.DEFAULT_CONFIG,
      isSensitive: false,
      type: TOPIC_CONFIG_TYPES[name] ?? ConfigType.STRING,
      documentation: def.doc,
      synonyms,
    };
  });
}

/** The broker's own settings, read-only (set by environment or flags at start-up). */
export function brokerConfigEntries(cfg: BrokerConfig): ConfigEntry[] {
  const entry = (name: string, value: string, type: number, documentation: string): ConfigEntry => ({
    name,
    value,
    readOnly: true,
    source: ConfigSource.STATIC_BROKER_CONFIG,
    isSensitive: false,
    type,
    documentation,
    synonyms: [{ name, value, source: ConfigSource.STATIC_BROKER_CONFIG }],
  });
  return [
    entry('auto.create.topics.enable', String(cfg.autoCreateTopics), ConfigType.BOOLEAN, 'AUTO_CREATE_TOPICS_ENABLE'),
    entry('num.partitions', String(cfg.numPartitions), ConfigType.INT, 'NUM_PARTITIONS'),
    entry('default.replication.factor', '1', ConfigType.INT, 'one broker, one replica'),
    entry('log.retention.ms', TOPIC_CONFIGS['retention.ms']!.default, ConfigType.LONG, 'default retention.ms of topics'),
    entry('log.retention.check.interval.ms', String(cfg.retentionCheckIntervalMs), ConfigType.LONG, 'LOG_RETENTION_CHECK_INTERVAL_MS'),
    entry('socket.request.max.bytes', String(cfg.maxRequestBytes), ConfigType.INT, 'SOCKET_REQUEST_MAX_BYTES'),
    entry('message.max.bytes', TOPIC_CONFIGS['max.message.bytes']!.default, ConfigType.INT, 'default max.message.bytes of topics'),
  ];
}
