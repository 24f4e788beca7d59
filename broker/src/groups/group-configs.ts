// GROUP config resources (ConfigResource type 32, KIP-848/KIP-932): a group's own settings, set
// with IncrementalAlterConfigs/AlterConfigs and read with DescribeConfigs (`kafka-configs.sh
// --entity-type groups`). Kafka's GroupConfig: the consumer ones change how the coordinator treats
// that group's members; the share ones how the share groups treat that group (KIP-932), at once
// (groups/share/share-group-configs.ts). Stored beside the
// dynamic broker configs (Storage.brokerConfigs) under the resource "group:<id>" (node ids are
// integers, so the two never meet).
import { parseShareAutoOffsetReset } from './share/share-auto-offset-reset';

/** DescribeConfigsResponse.ConfigSource.GROUP_CONFIG */
export const GROUP_CONFIG_SOURCE = 8;

/** The bounds and defaults a group's values are checked against (the broker's group.* settings). */
export type GroupConfigBounds = ConsumerConfigBounds & ShareConfigBounds;

export interface ConsumerConfigBounds {
  consumerSessionTimeoutMs: number;
  consumerHeartbeatIntervalMs: number;
  consumerMinSessionTimeoutMs: number;
  consumerMaxSessionTimeoutMs: number;
  consumerMinHeartbeatIntervalMs: number;
  consumerMaxHeartbeatIntervalMs: number;
}

/** The broker's group.share.* settings a share group's own values are checked against. */
export interface ShareConfigBounds {
  shareSessionTimeoutMs: number;
  shareMinSessionTimeoutMs: number;
  shareMaxSessionTimeoutMs: number;
  shareHeartbeatIntervalMs: number;
  shareMinHeartbeatIntervalMs: number;
  shareMaxHeartbeatIntervalMs: number;
  shareRecordLockDurationMs: number;
  shareMinRecordLockDurationMs: number;
  shareMaxRecordLockDurationMs: number;
}

/** Kafka's GroupCoordinatorConfig / ShareGroupConfig defaults for the share bounds. */
export const KAFKA_SHARE_BOUNDS: ShareConfigBounds = {
  shareSessionTimeoutMs: 45_000,
  shareMinSessionTimeoutMs: 45_000,
  shareMaxSessionTimeoutMs: 60_000,
  shareHeartbeatIntervalMs: 5_000,
  shareMinHeartbeatIntervalMs: 5_000,
  shareMaxHeartbeatIntervalMs: 15_000,
  shareRecordLockDurationMs: 30_000,
  shareMinRecordLockDurationMs: 15_000,
  shareMaxRecordLockDurationMs: 60_000,
};

/** Kafka's GroupCoordinatorConfig defaults for the consumer bounds. */
export const KAFKA_CONSUMER_BOUNDS: ConsumerConfigBounds = {
  consumerSessionTimeoutMs: 45_000,
  consumerHeartbeatIntervalMs: 5_000,
  consumerMinSessionTimeoutMs: 45_000,
  consumerMaxSessionTimeoutMs: 60_000,
  consumerMinHeartbeatIntervalMs: 5_000,
  consumerMaxHeartbeatIntervalMs: 15_000,
};

interface GroupConfigDef {
  type: 'INT' | 'STRING';
  /** The default as DescribeConfigs shows it. */
  defaultOf(b: GroupConfigBounds): string;
  /** Kafka's message for a value out of range, or null; `v` parsed for INT. */
  check(value: string, b: GroupConfigBounds): string | null;
  doc: string;
}

const intIn =
  (name: string, lo: (b: GroupConfigBounds) => [number, string], hi: (b: GroupConfigBounds) => [number, string]) =>
  (value: string, b: GroupConfigBounds): string | null => {
    if (!/^-?\d+$/.test(value.trim()) || Number(value) > 2 ** 31 - 1 || Number(value) < -(2 ** 31))
      return `Invalid value ${value} for configuration ${name}: Not a number of type INT`;
    const v = Number(value);
    const [min, minName] = lo(b);
    const [max, maxName] = hi(b);
    if (v < min) return `${name} must be greater than or equal to ${minName}`;
    if (v > max) return `${name} must be less than or equal to ${maxName}`;
    return null;
  };

export const GROUP_CONFIGS: Record<string, GroupConfigDef> = {
  'consumer.heartbeat.interval.ms': {
    type: 'INT',
    defaultOf: (b) => String(b.consumerHeartbeatIntervalMs),
    check: intIn(
      'consumer.heartbeat.interval.ms',
      (b) => [b.consumerMinHeartbeatIntervalMs, 'group.consumer.min.heartbeat.interval.ms'],
      (b) => [b.consumerMaxHeartbeatIntervalMs, 'group.consumer.max.heartbeat.interval.ms'],
    ),
    doc: 'The heartbeat interval given to the members of this consumer group.',
  },
  'consumer.session.timeout.ms': {
    type: 'INT',
    defaultOf: (b) => String(b.consumerSessionTimeoutMs),
    check: intIn(
      'consumer.session.timeout.ms',
      (b) => [b.consumerMinSessionTimeoutMs, 'group.consumer.min.session.timeout.ms'],
      (b) => [b.consumerMaxSessionTimeoutMs, 'group.consumer.max.session.timeout.ms'],
    ),
    doc: 'The timeout to detect client failures when using the consumer group protocol.',
  },
  'share.auto.offset.reset': {
    type: 'STRING',
    defaultOf: () => 'latest',
    check: (v) => {
      const parsed = parseShareAutoOffsetReset(v);
      return 'error' in parsed ? parsed.error : null;
    },
    doc: 'The strategy to initialize the share-partition start offset (share groups).',
  },
  'share.heartbeat.interval.ms': {
    type: 'INT',
    defaultOf: (b) => String(b.shareHeartbeatIntervalMs),
    check: intIn(
      'share.heartbeat.interval.ms',
      (b) => [b.shareMinHeartbeatIntervalMs, 'group.share.min.heartbeat.interval.ms'],
      (b) => [b.shareMaxHeartbeatIntervalMs, 'group.share.max.heartbeat.interval.ms'],
    ),
    doc: 'The heartbeat interval given to the members of this share group.',
  },
  'share.isolation.level': {
    type: 'STRING',
    defaultOf: () => 'read_uncommitted',
    check: (v) =>
      ['read_uncommitted', 'read_committed'].includes(v)
        ? null
        : `Invalid value ${v} for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted`,
    doc: 'How share-group members read transactional records.',
  },
  'share.record.lock.duration.ms': {
    type: 'INT',
    defaultOf: (b) => String(b.shareRecordLockDurationMs),
    check: intIn(
      'share.record.lock.duration.ms',
      (b) => [b.shareMinRecordLockDurationMs, 'group.share.min.record.lock.duration.ms'],
      (b) => [b.shareMaxRecordLockDurationMs, 'group.share.max.record.lock.duration.ms'],
    ),
    doc: 'The record acquisition lock duration in milliseconds for share groups.',
  },
  'share.session.timeout.ms': {
    type: 'INT',
    defaultOf: (b) => String(b.shareSessionTimeoutMs),
    check: intIn(
      'share.session.timeout.ms',
      (b) => [b.shareMinSessionTimeoutMs, 'group.share.min.session.timeout.ms'],
      (b) => [b.shareMaxSessionTimeoutMs, 'group.share.max.session.timeout.ms'],
    ),
    doc: 'The timeout to detect client failures when using the share group protocol.',
  },
};

export const GROUP_CONFIG_NAMES = Object.keys(GROUP_CONFIGS).sort();

/** The Storage.brokerConfigs resource a group's configs are stored under. */
export const groupConfigResource = (groupId: string): string => `group:${groupId}`;

/**
 * Kafka's GroupConfig.validate: unknown names, then each value, then each session timeout against
 * its heartbeat interval (a value not set is the broker's); the message of the first problem.
 */
export function validateGroupConfigs(configs: Record<string, string>, bounds: GroupConfigBounds): string | null {
  for (const name of Object.keys(configs)) if (!(name in GROUP_CONFIGS)) return `Unknown group config name: ${name}`;
  for (const [name, value] of Object.entries(configs)) {
    const problem = GROUP_CONFIGS[name]!.check(value, bounds);
    if (problem) return problem;
  }
  const valueOf = (name: string) => Number(configs[name] ?? GROUP_CONFIGS[name]!.defaultOf(bounds));
  for (const kind of ['consumer', 'share']) {
    if (valueOf(`${kind}.session.timeout.ms`) <= valueOf(`${kind}.heartbeat.interval.ms`))
      return `${kind}.session.timeout.ms must be greater than ${kind}.heartbeat.interval.ms`;
  }
  return null;
}

/** Every group config with its value: the group's own (GROUP_CONFIG) or the broker's default. */
export function groupConfigEntries(
  configs: Record<string, string>,
  bounds: GroupConfigBounds,
): { name: string; value: string; source: number; type: 'INT' | 'STRING'; doc: string }[] {
  return GROUP_CONFIG_NAMES.map((name) => {
    const def = GROUP_CONFIGS[name]!;
    const own = configs[name];
    return {
      name,
      value: own ?? def.defaultOf(bounds),
      source: own !== undefined ? GROUP_CONFIG_SOURCE : 5,
      type: def.type,
      doc: def.doc,
    };
  });
}

/** The consumer settings a group's stored configs give (the rest come from the broker). */
export function consumerSettingsOf(configs: Record<string, string>): {
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
} {
  const n = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  return {
    sessionTimeoutMs: n(configs['consumer.session.timeout.ms']),
    heartbeatIntervalMs: n(configs['consumer.heartbeat.interval.ms']),
  };
}
