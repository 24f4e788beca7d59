// The share groups' settings (KIP-932, groups/share/): Kafka's group.share.* names, defaults and
// bounds (GroupCoordinatorConfig and ShareGroupConfig of Kafka 4.1). A group may set its own lock
// duration, session timeout and heartbeat interval within the min/max here (GROUP configs,
// groups/group-configs.ts).
import { int, Setting } from './setting';

export interface ShareGroupSettings {
  /** group.share.session.timeout.ms */
  groupShareSessionTimeoutMs: number;
  /** group.share.min.session.timeout.ms / max: the range a group's share.session.timeout.ms may take. */
  groupShareMinSessionTimeoutMs: number;
  groupShareMaxSessionTimeoutMs: number;
  /** group.share.heartbeat.interval.ms */
  groupShareHeartbeatIntervalMs: number;
  /** group.share.min.heartbeat.interval.ms / max, likewise. */
  groupShareMinHeartbeatIntervalMs: number;
  groupShareMaxHeartbeatIntervalMs: number;
  /** group.share.max.size: members per share group. */
  groupShareMaxSize: number;
  /** group.share.record.lock.duration.ms: how long a fetched record stays with its member. */
  groupShareRecordLockDurationMs: number;
  /** group.share.min.record.lock.duration.ms / max: the range of a group's share.record.lock.duration.ms. */
  groupShareMinRecordLockDurationMs: number;
  groupShareMaxRecordLockDurationMs: number;
  /** group.share.delivery.count.limit: deliveries before a record is archived. */
  groupShareDeliveryCountLimit: number;
  /** group.share.partition.max.record.locks: records in flight per share-partition. */
  groupSharePartitionMaxRecordLocks: number;
  /** group.share.max.share.sessions: share sessions open on this broker at once. */
  groupShareMaxShareSessions: number;
}

const MS = 'an integer 1..2147483647 (ms)';
const ms = int(1, 2 ** 31 - 1);

export const SHARE_GROUP_SETTINGS = [
  {
    key: 'groupShareSessionTimeoutMs',
    env: 'GROUP_SHARE_SESSION_TIMEOUT_MS',
    flag: 'group-share-session-timeout-ms',
    doc: "a share-group member that does not heartbeat for this long is removed and the records it holds go back (group.share.session.timeout.ms; Kafka's default); a group may set its own (share.session.timeout.ms)",
    default: '45000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupShareMinSessionTimeoutMs',
    env: 'GROUP_SHARE_MIN_SESSION_TIMEOUT_MS',
    flag: 'group-share-min-session-timeout-ms',
    doc: "the lowest share.session.timeout.ms a group may set (group.share.min.session.timeout.ms; Kafka's default)",
    default: '45000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupShareMaxSessionTimeoutMs',
    env: 'GROUP_SHARE_MAX_SESSION_TIMEOUT_MS',
    flag: 'group-share-max-session-timeout-ms',
    doc: "the highest share.session.timeout.ms a group may set (group.share.max.session.timeout.ms; Kafka's default)",
    default: '60000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupShareHeartbeatIntervalMs',
    env: 'GROUP_SHARE_HEARTBEAT_INTERVAL_MS',
    flag: 'group-share-heartbeat-interval-ms',
    doc: "how often share-group members heartbeat (group.share.heartbeat.interval.ms; Kafka's default); a group may set its own (share.heartbeat.interval.ms)",
    default: '5000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupShareMinHeartbeatIntervalMs',
    env: 'GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS',
    flag: 'group-share-min-heartbeat-interval-ms',
    doc: "the lowest share.heartbeat.interval.ms a group may set (group.share.min.heartbeat.interval.ms; Kafka's default)",
    default: '5000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupShareMaxHeartbeatIntervalMs',
    env: 'GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS',
    flag: 'group-share-max-heartbeat-interval-ms',
    doc: "the highest share.heartbeat.interval.ms a group may set (group.share.max.heartbeat.interval.ms; Kafka's default)",
    default: '15000',
    expected: MS,
    parse: ms,
  },
  {
    key: 'groupShareMaxSize',
    env: 'GROUP_SHARE_MAX_SIZE',
    flag: 'group-share-max-size',
    doc: "the most members one share group may have; one more is refused with GROUP_MAX_SIZE_REACHED (group.share.max.size; Kafka's default and bounds)",
    default: '200',
    expected: 'an integer 1..1000',
    parse: int(1, 1000),
  },
  {
    key: 'groupShareRecordLockDurationMs',
    env: 'GROUP_SHARE_RECORD_LOCK_DURATION_MS',
    flag: 'group-share-record-lock-duration-ms',
    doc: "how long a record fetched by a share-group member stays with it unacknowledged before it goes to another member (group.share.record.lock.duration.ms; Kafka's default and bounds); a group may set its own (share.record.lock.duration.ms)",
    default: '30000',
    expected: 'an integer 1000..3600000 (ms)',
    parse: int(1000, 3_600_000),
  },
  {
    key: 'groupShareMinRecordLockDurationMs',
    env: 'GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS',
    flag: 'group-share-min-record-lock-duration-ms',
    doc: "the lowest share.record.lock.duration.ms a group may set (group.share.min.record.lock.duration.ms; Kafka's default and bounds)",
    default: '15000',
    expected: 'an integer 1000..30000 (ms)',
    parse: int(1000, 30_000),
  },
  {
    key: 'groupShareMaxRecordLockDurationMs',
    env: 'GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS',
    flag: 'group-share-max-record-lock-duration-ms',
    doc: "the highest share.record.lock.duration.ms a group may set (group.share.max.record.lock.duration.ms; Kafka's default and bounds)",
    default: '60000',
    expected: 'an integer 30000..3600000 (ms)',
    parse: int(30_000, 3_600_000),
  },
  {
    key: 'groupShareDeliveryCountLimit',
    env: 'GROUP_SHARE_DELIVERY_COUNT_LIMIT',
    flag: 'group-share-delivery-count-limit',
    doc: "a share-group record released or timed out after this many deliveries is archived, never delivered again (group.share.delivery.count.limit; Kafka's default and bounds)",
    default: '5',
    expected: 'an integer 2..10',
    parse: int(2, 10),
  },
  {
    key: 'groupSharePartitionMaxRecordLocks',
    env: 'GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS',
    flag: 'group-share-partition-max-record-locks',
    doc: "the most records of one share-partition in flight (fetched and not yet acknowledged or archived) at once; past it a share fetch waits (group.share.partition.max.record.locks; Kafka's default and bounds)",
    default: '2000',
    expected: 'an integer 100..10000',
    parse: int(100, 10_000),
  },
  {
    key: 'groupShareMaxShareSessions',
    env: 'GROUP_SHARE_MAX_SHARE_SESSIONS',
    flag: 'group-share-max-share-sessions',
    doc: "the most share sessions (one per share-group member fetching here) open on this broker at once; a share fetch opening one more gets SHARE_SESSION_LIMIT_REACHED (group.share.max.share.sessions; Kafka's default)",
    default: '2000',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
] as const satisfies readonly Setting<ShareGroupSettings>[];

/** Kafka's GroupCoordinatorConfig / ShareGroupConfig checks between these settings, or null. */
export function shareGroupSettingsProblem(c: ShareGroupSettings): string | null {
  const outside = (name: string, v: number, minName: string, min: number, maxName: string, max: number) =>
    v < min || v > max ? `${name}=${v} is outside ${minName}=${min}..${maxName}=${max}: move it or the bounds` : null;
  return (
    outside(
      'GROUP_SHARE_SESSION_TIMEOUT_MS',
      c.groupShareSessionTimeoutMs,
      'GROUP_SHARE_MIN_SESSION_TIMEOUT_MS',
      c.groupShareMinSessionTimeoutMs,
      'GROUP_SHARE_MAX_SESSION_TIMEOUT_MS',
      c.groupShareMaxSessionTimeoutMs,
    ) ??
    outside(
      'GROUP_SHARE_HEARTBEAT_INTERVAL_MS',
      c.groupShareHeartbeatIntervalMs,
      'GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS',
      c.groupShareMinHeartbeatIntervalMs,
      'GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS',
      c.groupShareMaxHeartbeatIntervalMs,
    ) ??
    outside(
      'GROUP_SHARE_RECORD_LOCK_DURATION_MS',
      c.groupShareRecordLockDurationMs,
      'GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS',
      c.groupShareMinRecordLockDurationMs,
      'GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS',
      c.groupShareMaxRecordLockDurationMs,
    ) ??
    (c.groupShareHeartbeatIntervalMs >= c.groupShareSessionTimeoutMs
      ? `GROUP_SHARE_HEARTBEAT_INTERVAL_MS=${c.groupShareHeartbeatIntervalMs} is not below GROUP_SHARE_SESSION_TIMEOUT_MS=${c.groupShareSessionTimeoutMs}: members would time out between heartbeats`
      : null)
  );
}

/** The share groups' options from these settings (broker.ts). */
export function shareGroupsOptions(c: ShareGroupSettings) {
  return {
    sessionTimeoutMs: c.groupShareSessionTimeoutMs,
    heartbeatIntervalMs: c.groupShareHeartbeatIntervalMs,
    maxGroupSize: c.groupShareMaxSize,
    maxShareSessions: c.groupShareMaxShareSessions,
    limits: {
      lockDurationMs: c.groupShareRecordLockDurationMs,
      deliveryCountLimit: c.groupShareDeliveryCountLimit,
      maxInFlight: c.groupSharePartitionMaxRecordLocks,
    },
    bounds: {
      shareSessionTimeoutMs: c.groupShareSessionTimeoutMs,
      shareMinSessionTimeoutMs: c.groupShareMinSessionTimeoutMs,
      shareMaxSessionTimeoutMs: c.groupShareMaxSessionTimeoutMs,
      shareHeartbeatIntervalMs: c.groupShareHeartbeatIntervalMs,
      shareMinHeartbeatIntervalMs: c.groupShareMinHeartbeatIntervalMs,
      shareMaxHeartbeatIntervalMs: c.groupShareMaxHeartbeatIntervalMs,
      shareRecordLockDurationMs: c.groupShareRecordLockDurationMs,
      shareMinRecordLockDurationMs: c.groupShareMinRecordLockDurationMs,
      shareMaxRecordLockDurationMs: c.groupShareMaxRecordLockDurationMs,
    },
  };
}
