// Topic configs minnow knows: Kafka's names and defaults (https://kafka.apache.org/documentation/#topicconfigs).
// Honoured: retention.ms, retention.bytes, cleanup.policy (delete), max.message.bytes,
// message.timestamp.type and its limits (before/after.max.ms, difference.max.ms). The others are accepted and reported so tools that set them keep working.

export interface ConfigDef {
  default: string;
  /** Returns an error message for a bad value, or null. */
  validate(value: string): string | null;
  doc: string;
  honoured: boolean;
}

const long = (min: number) => (v: string) =>
  /^-?\d+$/.test(v) && Number(v) >= min && Number.isSafeInteger(Number(v)) ? null : `expected an integer >= ${min}`;
const oneOf = (...allowed: string[]) => (v: string) => (allowed.includes(v) ? null : `expected one of ${allowed.join(', ')}`);

export const TOPIC_CONFIGS: Record<string, ConfigDef> = {
  'cleanup.policy': {
    default: 'delete',
    validate: (v) => (v === 'delete' ? null : v.split(',').includes('compact') ? 'log compaction is not supported by minnow yet; use delete' : 'expected delete'),
    doc: 'delete: old batches are removed by retention.ms / retention.bytes',
    honoured: true,
  },
  'retention.ms': { default: '604800000', validate: long(-1), doc: 'age after which whole batches are deleted; -1 keeps forever', honoured: true },
  'retention.bytes': { default: '-1', validate: long(-1), doc: 'per-partition size above which the oldest batches are deleted; -1 no limit', honoured: true },
  'max.message.bytes': { default: '1048588', validate: long(0), doc: 'largest record batch accepted', honoured: true },
  'message.timestamp.type': {
    default: 'CreateTime',
    validate: oneOf('CreateTime', 'LogAppendTime'),
    doc: 'LogAppendTime stamps batches with the broker time',
    honoured: true,
  },
  'compression.type': {
    default: 'producer',
    validate: oneOf('producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'),
    doc: 'accepted; minnow always stores batches as the producer compressed them',
    honoured: false,
  },
  'min.insync.replicas': { default: '1', validate: long(1), doc: 'accepted; one replica', honoured: false },
  'segment.bytes': { default: '1073741824', validate: long(14), doc: 'accepted; SQLite has no segments', honoured: false },
  'segment.ms': { default: '604800000', validate: long(1), doc: 'accepted; SQLite has no segments', honoured: false },
  'unclean.leader.election.enable': { default: 'false', validate: oneOf('true', 'false'), doc: 'accepted; one replica', honoured: false },
  'message.timestamp.difference.max.ms': {
    default: '9223372036854775807',
    validate: long(0),
    doc: 'deprecated (KIP-937, gone in Kafka 4.0): the limit of before.max.ms / after.max.ms when the topic sets neither',
    honoured: true,
  },
  // KIP-937: with CreateTime, records whose timestamp is further before / after the broker's time
  // are refused. after.max.ms defaults to 1 hour since Kafka 4.0 (KIP-1030).
  'message.timestamp.before.max.ms': { default: '9223372036854775807', validate: long(0), doc: 'CreateTime: oldest accepted timestamp, ms before now', honoured: true },
  'message.timestamp.after.max.ms': { default: '3600000', validate: long(0), doc: 'CreateTime: newest accepted timestamp, ms after now', honoured: true },
  'delete.retention.ms': { default: '86400000', validate: long(0), doc: 'accepted (compaction)', honoured: false },
  'min.compaction.lag.ms': { default: '0', validate: long(0), doc: 'accepted (compaction)', honoured: false },
};

/** Returns an error message for an unknown key or a bad value, or null. */
export function validateTopicConfig(key: string, value: string | null): string | null {
  const def = TOPIC_CONFIGS[key];
  if (!def) return `unknown topic config "${key}"; known: ${Object.keys(TOPIC_CONFIGS).join(', ')}`;
  if (value === null) return null;
  const err = def.validate(value);
  return err ? `bad value "${value}" for ${key}: ${err}` : null;
}

/** The effective value of a config for a topic (its override, else the broker default). */
export function topicConfig(configs: Record<string, string>, key: string): string {
  return configs[key] ?? TOPIC_CONFIGS[key]?.default ?? '';
}
