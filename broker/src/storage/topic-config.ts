// Kafka 3.9's topic configs (LogConfig's ConfigDef): type, default, validator and broker-level
// synonyms of each, plus whether minnow applies it. Everything DescribeConfigs reports is accepted
// back by AlterConfigs/IncrementalAlterConfigs/CreateTopics. Applied: retention.ms,
// retention.bytes, cleanup.policy (delete, compact or both: compaction/cleaner.ts),
// delete.retention.ms, min.compaction.lag.ms, max.compaction.lag.ms, min.cleanable.dirty.ratio,
// max.message.bytes, message.timestamp.type and the message.timestamp limits. The others are validated, stored and reported as Kafka does, and have no
// effect (one node, no segment files, no tiered storage). Kafka 4.0 removed message.format.version,
// message.timestamp.difference.max.ms and message.downconversion.enable (KIP-724, KIP-937);
// minnow keeps accepting them as 3.9 does so older tools and saved configs still apply.
import {
  atLeast,
  between,
  ConfigType,
  ConfigTypeId,
  gzipLevel,
  invalidValue,
  metadataVersion,
  parseAll,
  throttledReplicaList,
  validList,
  Validator,
  validString,
} from './config-def';
import { TOPIC_CONFIG_DOCS } from './topic-config-docs';

export interface TopicConfigDef {
  type: ConfigTypeId;
  /** Kafka's default, written as DescribeConfigs writes it. */
  default: string;
  validator: Validator | null;
  /** Broker configs that supply the default, highest priority first (ServerTopicConfigSynonyms). */
  serverSynonyms: readonly string[];
  /** Whether minnow acts on the value (docs/configuration.md, "Topic and broker configs"). */
  applied: boolean;
  /** Kafka's documentation of the config (DescribeConfigs v3+). */
  doc: string;
}

const LONG_MAX = '9223372036854775807';

type Row = [
  type: ConfigTypeId,
  dflt: string,
  validator: Validator | null,
  serverSynonyms: readonly string[],
  applied: boolean,
];
const log = (name: string) => [`log.${name}`];
const cleaner = (name: string) => [`log.cleaner.${name}`];

// Same order as LogConfig defines them. The empty-policy refusal lives in validateTopicConfigs.
const ROWS: Record<string, Row> = {
  'segment.bytes': [ConfigType.INT, '1073741824', atLeast(14), log('segment.bytes'), false],
  'segment.ms': [ConfigType.LONG, '604800000', atLeast(1), ['log.roll.ms', 'log.roll.hours'], false],
  'segment.jitter.ms': [ConfigType.LONG, '0', atLeast(0), ['log.roll.jitter.ms', 'log.roll.jitter.hours'], false],
  'segment.index.bytes': [ConfigType.INT, '10485760', atLeast(4), log('index.size.max.bytes'), false],
  'flush.messages': [ConfigType.LONG, LONG_MAX, atLeast(1), log('flush.interval.messages'), false],
  'flush.ms': [
    ConfigType.LONG,
    LONG_MAX,
    atLeast(0),
    ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
    false,
  ],
  'retention.bytes': [ConfigType.LONG, '-1', null, log('retention.bytes'), true],
  'retention.ms': [
    ConfigType.LONG,
    '604800000',
    atLeast(-1),
    ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
    true,
  ],
  'max.message.bytes': [ConfigType.INT, '1048588', atLeast(0), ['message.max.bytes'], true],
  'index.interval.bytes': [ConfigType.INT, '4096', atLeast(0), log('index.interval.bytes'), false],
  'delete.retention.ms': [ConfigType.LONG, '86400000', atLeast(0), cleaner('delete.retention.ms'), true],
  'min.compaction.lag.ms': [ConfigType.LONG, '0', atLeast(0), cleaner('min.compaction.lag.ms'), true],
  'max.compaction.lag.ms': [ConfigType.LONG, LONG_MAX, atLeast(1), cleaner('max.compaction.lag.ms'), true],
  'file.delete.delay.ms': [ConfigType.LONG, '60000', atLeast(0), log('segment.delete.delay.ms'), false],
  'min.cleanable.dirty.ratio': [ConfigType.DOUBLE, '0.5', between(0, 1), cleaner('min.cleanable.ratio'), true],
  'cleanup.policy': [ConfigType.LIST, 'delete', validList('compact', 'delete'), log('cleanup.policy'), true],
  'unclean.leader.election.enable': [ConfigType.BOOLEAN, 'false', null, ['unclean.leader.election.enable'], false],
  'min.insync.replicas': [ConfigType.INT, '1', atLeast(1), ['min.insync.replicas'], false],
  'compression.type': [
    ConfigType.STRING,
    'producer',
    validString('uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'),
    ['compression.type'],
    false,
  ],
  'compression.gzip.level': [ConfigType.INT, '-1', gzipLevel, ['compression.gzip.level'], false],
  'compression.lz4.level': [ConfigType.INT, '9', between(1, 17), ['compression.lz4.level'], false],
  'compression.zstd.level': [ConfigType.INT, '3', between(-131072, 22), ['compression.zstd.level'], false],
  preallocate: [ConfigType.BOOLEAN, 'false', null, log('preallocate'), false],
  'message.format.version': [ConfigType.STRING, '3.0-IV1', metadataVersion, log('message.format.version'), false],
  'message.timestamp.type': [
    ConfigType.STRING,
    'CreateTime',
    validString('CreateTime', 'LogAppendTime'),
    log('message.timestamp.type'),
    true,
  ],
  // KIP-937 limits, applied by produce validation (producePolicy). after.max.ms has Kafka 4.0's
  // default of one hour (KIP-1030); difference.max.ms stands in for a limit the topic leaves unset.
  'message.timestamp.difference.max.ms': [
    ConfigType.LONG,
    LONG_MAX,
    atLeast(0),
    log('message.timestamp.difference.max.ms'),
    true,
  ],
  'message.timestamp.before.max.ms': [
    ConfigType.LONG,
    LONG_MAX,
    atLeast(0),
    log('message.timestamp.before.max.ms'),
    true,
  ],
  'message.timestamp.after.max.ms': [
    ConfigType.LONG,
    '3600000',
    atLeast(0),
    log('message.timestamp.after.max.ms'),
    true,
  ],
  'leader.replication.throttled.replicas': [
    ConfigType.LIST,
    '',
    throttledReplicaList('leader.replication.throttled.replicas'),
    [],
    false,
  ],
  'follower.replication.throttled.replicas': [
    ConfigType.LIST,
    '',
    throttledReplicaList('follower.replication.throttled.replicas'),
    [],
    false,
  ],
  'message.downconversion.enable': [ConfigType.BOOLEAN, 'true', null, log('message.downconversion.enable'), false],
  'remote.storage.enable': [ConfigType.BOOLEAN, 'false', null, [], false],
  'local.retention.ms': [ConfigType.LONG, '-2', atLeast(-2), log('local.retention.ms'), false],
  'local.retention.bytes': [ConfigType.LONG, '-2', atLeast(-2), log('local.retention.bytes'), false],
  'remote.log.copy.disable': [ConfigType.BOOLEAN, 'false', null, [], false],
  'remote.log.delete.on.disable': [ConfigType.BOOLEAN, 'false', null, [], false],
};

export const TOPIC_CONFIGS: Readonly<Record<string, TopicConfigDef>> = Object.fromEntries(
  Object.entries(ROWS).map(([name, [type, dflt, validator, serverSynonyms, applied]]) => [
    name,
    { type, default: dflt, validator, serverSynonyms, applied, doc: TOPIC_CONFIG_DOCS[name] ?? '' },
  ]),
);

/**
 * Topic configs Kafka 4.0 removed (KIP-724, KIP-937): still accepted, as by 3.9, so older tools and
 * saved configs apply, but described only where a topic or broker-level value sets them, as Kafka 4
 * no longer lists them.
 */
export const REMOVED_IN_KAFKA_4: ReadonlySet<string> = new Set([
  'message.format.version',
  'message.downconversion.enable',
  'message.timestamp.difference.max.ms',
]);

/** Kafka's names in the order DescribeConfigs lists them (LogConfig.configNames is sorted). */
export const TOPIC_CONFIG_NAMES: readonly string[] = Object.keys(TOPIC_CONFIGS).sort();

export type TopicConfigCheck = { ok: true; configs: Record<string, string> } | { ok: false; message: string };

/**
 * minnow's refusal of a (log.)cleanup.policy value Kafka's validator accepts: an empty list would
 * keep data forever. delete, compact and both are accepted (compaction: compaction/cleaner.ts).
 * Null when the value (if any) is fine.
 */
export function cleanupPolicyError(name: string, policy: string | undefined): string | null {
  if (policy === '')
    return invalidValue(
      name,
      '',
      'minnow needs a policy (an empty list would keep data forever); use delete, compact or compact,delete',
    );
  return null;
}

/** Whether a topic's effective cleanup.policy holds compact (records then need a key: LogValidator.validateKey). */
export function isCompacted(
  configs: Record<string, string>,
  brokerDefaults?: Readonly<Record<string, string>>,
): boolean {
  return topicConfig(configs, 'cleanup.policy', brokerDefaults)
    .split(',')
    .some((p) => p.trim() === 'compact');
}

/**
 * Validates a topic's whole override set as LogConfig.validate does (names, each value, then the
 * checks across values) and returns the values written as DescribeConfigs will report them.
 * Errors are Kafka's texts, for INVALID_CONFIG.
 */
export function validateTopicConfigs(configs: Record<string, string>): TopicConfigCheck {
  for (const name of Object.keys(configs)) {
    if (!TOPIC_CONFIGS[name]) return { ok: false, message: `Unknown topic config name: ${name}` };
  }
  const parsed = parseAll(configs, (name) => TOPIC_CONFIGS[name]!);
  if (!parsed.ok) return parsed;
  const out = parsed.configs;
  const policyError = cleanupPolicyError('cleanup.policy', out['cleanup.policy']);
  if (policyError) return { ok: false, message: policyError };
  const minLag = BigInt(out['min.compaction.lag.ms'] ?? TOPIC_CONFIGS['min.compaction.lag.ms']!.default);
  const maxLag = BigInt(out['max.compaction.lag.ms'] ?? TOPIC_CONFIGS['max.compaction.lag.ms']!.default);
  if (minLag > maxLag) {
    return {
      ok: false,
      message: `conflict topic config setting min.compaction.lag.ms (${minLag}) > max.compaction.lag.ms (${maxLag})`,
    };
  }
  if (out['remote.storage.enable'] === 'true') {
    return {
      ok: false,
      message:
        'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.',
    };
  }
  return { ok: true, configs: out };
}

/**
 * The effective value of a config for a topic: its override, else the broker-level default
 * (`brokerDefaults`, from dynamic broker configs: broker-configs.ts), else Kafka's default.
 * Values are as validateTopicConfigs wrote them; LONGs may exceed 2^53 (compare as BigInt).
 */
export function topicConfig(
  configs: Record<string, string>,
  key: string,
  brokerDefaults?: Readonly<Record<string, string>>,
): string {
  return configs[key] ?? brokerDefaults?.[key] ?? TOPIC_CONFIGS[key]?.default ?? '';
}

/**
 * Whether a topic's override says message.timestamp.type=LogAppendTime (the broker-level default
 * is the produce path's to apply; storage stamps its own markers from the topic's configs).
 */
export function isLogAppendTime(configs: Record<string, string>): boolean {
  return topicConfig(configs, 'message.timestamp.type') === 'LogAppendTime';
}
