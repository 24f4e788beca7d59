// What OffsetCommit, OffsetFetch, ConsumerGroupDescribe, ListGroups and DeleteGroups see of a
// KIP-848 consumer group (Kafka's ConsumerGroup.validateOffsetCommit/validateOffsetFetch/
// asDescribedGroup). `undefined` from a check means "not a consumer group": the classic path decides.
import { ErrorCode } from '../../protocol/error-codes';
import type { Assignment } from './assignment';
import { toTopicPartitions } from './assignment';
import type { ConsumerGroup } from './consumer-group';
import type { TopicFacts } from './topics-view';

/**
 * OffsetCommit to a consumer group: epoch -1 commits (admin tools, consumers without group
 * management) only while it has no members; members commit with their current epoch
 * (STALE_MEMBER_EPOCH otherwise: the client retries with its new epoch) and OffsetCommit v9+.
 */
export function offsetCommitError(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  apiVersion: number,
  transactional: boolean,
): number {
  if (memberEpoch < 0 && group.size === 0) return ErrorCode.NONE;
  const member = group.members.get(memberId);
  if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
  // Classic-protocol members commit with their generation (the member epoch), in any version.
  if (member.classic !== null)
    return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
  if (!transactional && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
  return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
}

/** OffsetFetch v9+ naming a member: it must be one, at its current epoch. */
export function offsetFetchError(group: ConsumerGroup, memberId: string | null, memberEpoch: number): number {
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const member = memberId === null ? undefined : group.members.get(memberId);
  if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
  return member.classic !== null ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
}

export interface DescribedConsumerGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: {
    memberId: string;
    instanceId: string | null;
    rackId: string | null;
    memberEpoch: number;
    clientId: string;
    clientHost: string;
    subscribedTopicNames: string[];
    subscribedTopicRegex: string | null;
    assignment: { topicPartitions: { topicId: string; topicName: string; partitions: number[] }[] };
    targetAssignment: { topicPartitions: { topicId: string; topicName: string; partitions: number[] }[] };
  }[];
}

/** ConsumerGroupDescribe's answer for one group; topic names from the broker's topics by id. */
export function describeConsumerGroup(
  group: ConsumerGroup,
  topicsById: ReadonlyMap<string, TopicFacts>,
  defaultAssignor: string,
): DescribedConsumerGroup {
  const named = (a: Assignment) => ({
    topicPartitions: toTopicPartitions(a).map((tp) => ({
      topicId: tp.topicId,
      topicName: topicsById.get(tp.topicId)?.name ?? '',
      partitions: tp.partitions,
    })),
  });
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId: group.groupId,
    groupState: group.state(),
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: group.assignorName === '' ? defaultAssignor : group.assignorName,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      // Kafka sends "" for a member without a regex.
      subscribedTopicRegex: m.subscribedTopicRegex ?? '',
      assignment: named(m.assignedPartitions),
      targetAssignment: named(group.targetAssignment.get(m.memberId) ?? new Map()),
    })),
  };
}

/** ConsumerGroupDescribe for an id that is no consumer group: GROUP_ID_NOT_FOUND, as Kafka answers. */
export function notAConsumerGroup(groupId: string, exists: boolean): DescribedConsumerGroup {
  return {
    errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
    errorMessage: exists ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`,
    groupId,
    groupState: '',
    groupEpoch: 0,
    assignmentEpoch: 0,
    assignorName: '',
    members: [],
  };
}
