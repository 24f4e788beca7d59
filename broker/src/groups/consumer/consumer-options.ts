// What the KIP-848 consumer group coordinator is configured with (consumer-coordinator.ts), and the
// view it has of the classic groups sharing the group-id space (coordinator.ts implements it).
import type { Logger } from '../../logger';
import type { Storage } from '../../storage/storage';
import type { TimerLike } from '../timers';
import type { KeyedSerial } from '../../keyed-serial';
import type { Group } from '../group';
import type { MigrationPolicy } from './group-conversion';

/** Kafka's group.consumer.session.timeout.ms default. */
export const DEFAULT_CONSUMER_SESSION_TIMEOUT_MS = 45_000;
/** Kafka's group.consumer.heartbeat.interval.ms default. */
export const DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS = 5_000;
/** How long a snapshot of the topics serves heartbeats before it is read again (topics-view.ts). */
export const DEFAULT_TOPICS_REFRESH_MS = 1_000;

/** A group's own settings (GROUP config resources), overriding the broker's where set. */
export interface ConsumerGroupSettings {
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
}

/** The classic groups, as the consumer coordinator needs to see them (one group-id space). */
export interface ClassicGroupView {
  /** 'none': no classic group in memory; 'empty': one without members; 'active': one with members. */
  classicGroupState(groupId: string): 'none' | 'empty' | 'active';
  /** Forgets an empty classic group that a consumer-protocol member is taking over (offsets stay). */
  dropEmptyClassicGroup(groupId: string): void;
  /** The classic group with this id, if any (read to decide an online upgrade). */
  classicGroup(groupId: string): Group | undefined;
  /**
   * Hands a classic group over for an online upgrade: its held JoinGroup/SyncGroup answered
   * REBALANCE_IN_PROGRESS (its members rejoin, into the consumer group), its timers stopped, gone.
   */
  takeClassicGroup(groupId: string): void;
  /** Takes a group downgraded from a consumer group: stored, session timers started, rebalanced if `rebalance`. */
  adoptClassicGroup(group: Group, reason: string, rebalance: boolean): void;
}

export interface ConsumerCoordinatorOptions {
  storage: Storage;
  logger: Logger;
  now?: () => number;
  timers?: TimerLike;
  /** group.consumer.session.timeout.ms */
  sessionTimeoutMs?: number;
  /** group.consumer.heartbeat.interval.ms */
  heartbeatIntervalMs?: number;
  /** group.consumer.assignors: names, the first the default. */
  assignors?: readonly string[];
  /** group.consumer.min/max.session.timeout.ms: the range a group's own setting must be in (GROUP configs). */
  minSessionTimeoutMs?: number;
  maxSessionTimeoutMs?: number;
  /** group.consumer.min/max.heartbeat.interval.ms, likewise. */
  minHeartbeatIntervalMs?: number;
  maxHeartbeatIntervalMs?: number;
  /** group.consumer.max.size */
  maxSize?: number;
  topicsRefreshMs?: number;
  /** group.consumer.migration.policy: which online conversions are allowed (Kafka 4: bidirectional). */
  migrationPolicy?: MigrationPolicy;
  /** The group-state writes, one at a time per group: shared with the classic coordinator, so a
   * converted group's writes land in the order the conversions happened. */
  groupWrites?: KeyedSerial<string>;
}

/** ConsumerGroupHeartbeat as the coordinator takes it (the request plus who sent it). */
export interface HeartbeatInput {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: { topicId: string; partitions: number[] }[] | null;
  clientId: string;
  clientHost: string;
}

export interface HeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: { topicId: string; partitions: number[] }[] } | null;
}
