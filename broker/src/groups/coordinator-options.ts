// What the group coordinator is configured with and the requests it takes (coordinator.ts), in a
// file of their own so each layer of the coordinator (group-sessions.ts, rebalance.ts,
// static-member-join.ts) can name them without importing coordinator.ts.
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';
import type { GroupProtocol } from './group';
import type { TimerLike } from './timers';
import type { ConsumerCoordinatorOptions } from './consumer/consumer-options';

/** Kafka's group.initial.rebalance.delay.ms default (GroupCoordinatorConfig.GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT). */
export const DEFAULT_INITIAL_REBALANCE_DELAY_MS = 3000;

export interface GroupCoordinatorOptions {
  storage: Storage;
  logger: Logger;
  now?: () => number;
  timers?: TimerLike;
  /**
   * group.initial.rebalance.delay.ms: how long the rebalance of an Empty group waits for more
   * members; for a new group (generation 0) extended while new ones keep arriving, up to the
   * rebalance timeout. Kafka's default, 3000, so consumers starting together share one rebalance.
   */
  initialRebalanceDelayMs?: number;
  /** group.min.session.timeout.ms (Kafka: 6000). */
  minSessionTimeoutMs?: number;
  /** group.max.session.timeout.ms (Kafka: 1800000). */
  maxSessionTimeoutMs?: number;
  /** How long a new member's JoinGroup may be held before the member is dropped (Kafka: 5 min). */
  newMemberJoinTimeoutMs?: number;
  /** The KIP-848 consumer groups' settings (group.consumer.*); storage, logger and time are shared. */
  consumer?: Omit<ConsumerCoordinatorOptions, 'storage' | 'logger' | 'now' | 'timers'>;
}

export interface JoinGroupInput {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  /** JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED and its id (KIP-394). */
  requireKnownMemberId: boolean;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: GroupProtocol[];
  reason?: string | null;
}

export interface SyncGroupInput {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** v5+: checked against the group's (INCONSISTENT_GROUP_PROTOCOL on mismatch). */
  protocolType: string | null;
  protocolName: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export interface MemberIdentity {
  memberId: string;
  groupInstanceId: string | null;
  reason?: string | null;
}

export interface LeaveResult {
  errorCode: number;
  members: (MemberIdentity & { errorCode: number })[];
}
