// ConsumerGroupHeartbeat's request checks (Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid
// and throwIfConsumerGroupMemberEpochIsInvalid), each an error code with the message Kafka gives.
import { ErrorCode } from '../../protocol/error-codes';
import type { TopicPartitions } from './assignment';
import type { HeartbeatInput } from './consumer-options';
import {
  ConsumerMember,
  JOIN_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
} from './member';
import { compileTopicRegex } from './topic-regex';

export interface Refusal {
  errorCode: number;
  message: string;
}

const invalid = (message: string): Refusal => ({ errorCode: ErrorCode.INVALID_REQUEST, message });

export function checkRequest(req: HeartbeatInput, assignorNames: readonly string[]): Refusal | null {
  if (req.groupId === '') return invalid("GroupId can't be empty.");
  if (req.instanceId === '') return invalid("InstanceId can't be empty.");
  if (req.rackId === '') return invalid("RackId can't be empty.");
  const e = req.memberEpoch;
  if (e > 0 || e === LEAVE_GROUP_MEMBER_EPOCH) {
    if (req.memberId === '') return invalid("MemberId can't be empty.");
  } else if (e === JOIN_GROUP_MEMBER_EPOCH) {
    if (req.rebalanceTimeoutMs === -1) return invalid('RebalanceTimeoutMs must be provided in first request.');
    if (req.topicPartitions === null || req.topicPartitions.length > 0)
      return invalid('TopicPartitions must be empty when (re-)joining.');
    // Set, not non-empty: Kafka 4 lets a member join subscribed to nothing (an empty list).
    if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null)
      return invalid('SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
  } else if (e === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (req.memberId === '') return invalid("MemberId can't be empty.");
    if (req.instanceId === null) return invalid("InstanceId can't be null.");
  } else {
    return invalid('MemberEpoch is invalid.');
  }
  if (req.serverAssignor !== null && !assignorNames.includes(req.serverAssignor)) {
    return {
      errorCode: ErrorCode.UNSUPPORTED_ASSIGNOR,
      message: `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${assignorNames.join(', ')}.`,
    };
  }
  if (req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== '') {
    const compiled = compileTopicRegex(req.subscribedTopicRegex);
    if (!compiled.ok) return { errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, message: compiled.message };
  }
  return null;
}

/**
 * The epoch the member sent against the one the coordinator has: a greater one, or a smaller one
 * other than the previous epoch with owned partitions within the current assignment (its answer
 * may have been lost), is FENCED_MEMBER_EPOCH: the member gives up its partitions and rejoins.
 */
export function checkMemberEpoch(
  member: ConsumerMember,
  received: number,
  owned: readonly TopicPartitions[] | null,
): Refusal | null {
  const fenced = (how: string): Refusal => ({
    errorCode: ErrorCode.FENCED_MEMBER_EPOCH,
    message: `The consumer group member has a ${how} member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
  });
  if (received > member.memberEpoch) return fenced('greater');
  if (received < member.memberEpoch) {
    if (received !== member.previousMemberEpoch || !isSubset(owned, member)) return fenced('smaller');
  }
  return null;
}

function isSubset(owned: readonly TopicPartitions[] | null, member: ConsumerMember): boolean {
  if (owned === null) return false;
  for (const { topicId, partitions } of owned) {
    const held = member.assignedPartitions.get(topicId);
    if (!held) return false;
    if (!partitions.every((p) => held.has(p))) return false;
  }
  return true;
}
