// The KIP-848 consumer group coordinator's settings (groups/consumer/), Kafka's names and defaults.
import { assignorsNamed } from '../../groups/consumer/assignor-registry';
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
  };
}
