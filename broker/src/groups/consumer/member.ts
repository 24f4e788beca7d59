// One member of a KIP-848 consumer group as the coordinator knows it (Kafka's ConsumerGroupMember):
// immutable, replaced whole at each change so "did it change" is a reference or field comparison.
import { Assignment, EMPTY_ASSIGNMENT } from './assignment';

/** Kafka's MemberState (modern/MemberState.java), with its names as ConsumerGroupDescribe shows them. */
export const MemberState = {
  /** Has its whole target assignment (of its epoch). */
  STABLE: 'stable',
  /** Must revoke partitions (listed in partitionsPendingRevocation) before it gets its next epoch. */
  UNREVOKED_PARTITIONS: 'unrevoked_partitions',
  /** At the target epoch, waiting for partitions that other members still own. */
  UNRELEASED_PARTITIONS: 'unreleased_partitions',
} as const;
export type MemberState = (typeof MemberState)[keyof typeof MemberState];

/**
 * A member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat) inside a consumer
 * group (Kafka's ClassicMemberMetadata): after an online upgrade, or a classic consumer joining a
 * consumer group. Its session timeout and JoinGroup protocols (name, subscription bytes) are its own.
 */
export interface ClassicMemberMetadata {
  readonly sessionTimeoutMs: number;
  readonly protocols: readonly { readonly name: string; readonly metadata: Buffer }[];
}

/** ConsumerGroupHeartbeat's special epochs (ConsumerGroupHeartbeatRequest.java). */
export const JOIN_GROUP_MEMBER_EPOCH = 0;
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface ConsumerMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  readonly rebalanceTimeoutMs: number;
  readonly subscribedTopicNames: readonly string[];
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  /** The partitions it may consume now. */
  readonly assignedPartitions: Assignment;
  /** Partitions it still owns and must give up (UNREVOKED_PARTITIONS). */
  readonly partitionsPendingRevocation: Assignment;
  /** Set when the member uses the classic protocol; null for ConsumerGroupHeartbeat members. */
  readonly classic: ClassicMemberMetadata | null;
}

export function newMember(memberId: string): ConsumerMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: MemberState.STABLE,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: [],
    subscribedTopicRegex: null,
    serverAssignor: null,
    assignedPartitions: EMPTY_ASSIGNMENT,
    partitionsPendingRevocation: EMPTY_ASSIGNMENT,
    classic: null,
  };
}

/** The member at a new epoch, remembering the one it had (a lost answer is forgiven once). */
export function withEpoch(m: ConsumerMember, memberEpoch: number): ConsumerMember {
  return { ...m, previousMemberEpoch: m.memberEpoch, memberEpoch };
}

/** Kafka's isReconciledTo: at the target epoch with nothing left to revoke or receive. */
export function isReconciledTo(m: ConsumerMember, targetAssignmentEpoch: number): boolean {
  return m.state === MemberState.STABLE && m.memberEpoch === targetAssignmentEpoch;
}

export function sameSubscription(a: ConsumerMember, b: ConsumerMember): boolean {
  return (
    a.subscribedTopicRegex === b.subscribedTopicRegex &&
    a.subscribedTopicNames.length === b.subscribedTopicNames.length &&
    a.subscribedTopicNames.every((t, i) => t === b.subscribedTopicNames[i])
  );
}
