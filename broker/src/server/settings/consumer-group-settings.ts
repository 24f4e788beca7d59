// The KIP-848 consumer group coordinator's settings (groups/consumer/), Kafka's names and defaults.
import { assignorsNamed } from '../../groups/consumer/assignor-registry';
import { MIGRATION_POLICIES, MigrationPolicy } from '../../groups/consumer/group-conversion';
import { int, Setting } from './setting';

export interface ConsumerGroupSettings {
  /** group.consumer.session.timeout.ms */
  groupConsumerSessionTimeoutMs: number;
  /** group.consumer.heartbeat.interval.ms */
  groupConsumerHeartbeatIntervalMs: number;
  /** group.consumer.min.session.timeout.ms / max: the range a group's own setting may take. */
  groupConsumerMinSessionTimeoutMs: number;
  groupConsumerMaxSessionTimeoutMs: number;
  /** group.consumer.min.heartbeat.interval.ms / max, likewise. */
  groupConsumerMinHeartbeatIntervalMs: number;
  groupConsumerMaxHeartbeatIntervalMs: number;
  /** group.consumer.assignors: the server-side assignors offered, the first the default. */
  groupConsumerAssignors: string[];
  /** group.consumer.max.size: members a consumer group may have (GROUP_MAX_SIZE_REACHED beyond). */
  groupConsumerMaxSize: number;
  /** group.consumer.migration.policy: online classic <-> consumer conversions allowed. */
  groupConsumerMigrationPolicy: MigrationPolicy;
}

const MS = 'an integer 1..2147483647 (ms)';
const ms = int(1, 2 ** 31 - 1);

export const CONSUMER_GROUP_SETTINGS = [
  {
    key: 'groupConsumerSessionTimeoutMs',
    env: 'GROUP_CONSUMER_SESSION_TIMEOUT_MS',
    flag: 'group-consumer-session-timeout-ms',
    doc: "a group.protocol=consumer member that does not heartbeat for this long is removed and its partitions move on (group.consumer.session.timeout.ms; Kafka's default); a group may set its own (consumer.session.timeout.ms)",
    default: '45000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupConsumerHeartbeatIntervalMs',
    env: 'GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS',
    flag: 'group-consumer-heartbeat-interval-ms',
    doc: "how often group.protocol=consumer members heartbeat; a partition released by one member reaches the next at its next heartbeat (group.consumer.heartbeat.interval.ms; Kafka's default); a group may set its own (consumer.heartbeat.interval.ms)",
    default: '5000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupConsumerMinSessionTimeoutMs',
    env: 'GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS',
    flag: 'group-consumer-min-session-timeout-ms',
    doc: "the lowest consumer.session.timeout.ms a group may set (group.consumer.min.session.timeout.ms; Kafka's default)",
    default: '45000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupConsumerMaxSessionTimeoutMs',
    env: 'GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS',
    flag: 'group-consumer-max-session-timeout-ms',
    doc: "the highest consumer.session.timeout.ms a group may set (group.consumer.max.session.timeout.ms; Kafka's default)",
    default: '60000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupConsumerMinHeartbeatIntervalMs',
    env: 'GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS',
    flag: 'group-consumer-min-heartbeat-interval-ms',
    doc: "the lowest consumer.heartbeat.interval.ms a group may set (group.consumer.min.heartbeat.interval.ms; Kafka's default)",
    default: '5000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupConsumerMaxHeartbeatIntervalMs',
    env: 'GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS',
    flag: 'group-consumer-max-heartbeat-interval-ms',
    doc: "the highest consumer.heartbeat.interval.ms a group may set (group.consumer.max.heartbeat.interval.ms; Kafka's default)",
    default: '15000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupConsumerAssignors',
    env: 'GROUP_CONSUMER_ASSIGNORS',
    flag: 'group-consumer-assignors',
    doc: "the server-side assignors group.protocol=consumer members may ask for (group.remote.assignor), the first the default (group.consumer.assignors; Kafka's default; Kafka's class names are accepted)",
    default: 'uniform,range',
    expected: 'a comma-separated list of uniform and/or range',
    parse: (v: string) => {
      const names = v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      try {
        return names.length > 0 ? assignorsNamed(names).map((a) => a.name) : undefined;
      } catch {
        return undefined;
      }
    },
  },
  {
    key: 'groupConsumerMaxSize',
    env: 'GROUP_CONSUMER_MAX_SIZE',
    flag: 'group-consumer-max-size',
    doc: "the most members a group.protocol=consumer group may have, classic members in it included; one more is refused with GROUP_MAX_SIZE_REACHED, and a classic group this large is not upgraded online (group.consumer.max.size; Kafka's default)",
    default: '2147483647',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'groupConsumerMigrationPolicy',
    env: 'GROUP_CONSUMER_MIGRATION_POLICY',
    flag: 'group-consumer-migration-policy',
    doc: "which online conversions a group with members gets: upgrade (a group.protocol=consumer member joins a classic group of consumers, whose members carry on inside it), downgrade (the last consumer-protocol member leaves and the classic members remain: a classic group again), bidirectional (both) or disabled (group.consumer.migration.policy; Kafka's default)",
    default: 'bidirectional',
    expected: MIGRATION_POLICIES.join(', '),
    parse: (v: string) => MIGRATION_POLICIES.find((p) => p === v.trim().toLowerCase()),
  },
] as const satisfies readonly Setting<ConsumerGroupSettings>[];

/** Checks between the settings above: each default within its bounds (a ConfigError message), or null. */
export function consumerGroupSettingsProblem(c: ConsumerGroupSettings): string | null {
  if (
    c.groupConsumerSessionTimeoutMs < c.groupConsumerMinSessionTimeoutMs ||
    c.groupConsumerSessionTimeoutMs > c.groupConsumerMaxSessionTimeoutMs
  )
    return `GROUP_CONSUMER_SESSION_TIMEOUT_MS=${c.groupConsumerSessionTimeoutMs} is outside GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS=${c.groupConsumerMinSessionTimeoutMs}..GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS=${c.groupConsumerMaxSessionTimeoutMs}: move it or the bounds`;
  if (
    c.groupConsumerHeartbeatIntervalMs < c.groupConsumerMinHeartbeatIntervalMs ||
    c.groupConsumerHeartbeatIntervalMs > c.groupConsumerMaxHeartbeatIntervalMs
  )
    return `GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=${c.groupConsumerHeartbeatIntervalMs} is outside GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS=${c.groupConsumerMinHeartbeatIntervalMs}..GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS=${c.groupConsumerMaxHeartbeatIntervalMs}: move it or the bounds`;
  if (c.groupConsumerHeartbeatIntervalMs >= c.groupConsumerSessionTimeoutMs)
    return `GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=${c.groupConsumerHeartbeatIntervalMs} is not below GROUP_CONSUMER_SESSION_TIMEOUT_MS=${c.groupConsumerSessionTimeoutMs}: members would time out between heartbeats`;
  return null;
}

/** The consumer coordinator's options from these settings (broker.ts). */
export function consumerCoordinatorOptions(c: ConsumerGroupSettings) {
  return {
    sessionTimeoutMs: c.groupConsumerSessionTimeoutMs,
    heartbeatIntervalMs: c.groupConsumerHeartbeatIntervalMs,
    minSessionTimeoutMs: c.groupConsumerMinSessionTimeoutMs,
    maxSessionTimeoutMs: c.groupConsumerMaxSessionTimeoutMs,
    minHeartbeatIntervalMs: c.groupConsumerMinHeartbeatIntervalMs,
    maxHeartbeatIntervalMs: c.groupConsumerMaxHeartbeatIntervalMs,
    assignors: c.groupConsumerAssignors,
    maxSize: c.groupConsumerMaxSize,
    migrationPolicy: c.groupConsumerMigrationPolicy,
  };
}
