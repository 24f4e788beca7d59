// `minnow group describe` of a KIP-848 consumer group: ConsumerGroupDescribe (key 69), whose
// members carry their epochs and assignments by topic name (DescribeGroups describes such a group
// as Dead). Null when the broker has no key 69 or the group is not a consumer-protocol group.
import type { KafkaConnection } from '../client/connection';
import { KafkaClientError } from '../client/connection';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { ConsumerGroupDescribeResponse } from '../protocol/messages';

export interface DescribedMemberForCli {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  memberEpoch?: number;
  subscription: string[] | null;
  subscribedTopicRegex?: string | null;
  assignment: { topic: string; partitions: number[] }[] | null;
}

export interface DescribedConsumerProtocolGroup {
  groupType: 'consumer';
  state: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignor: string;
  members: DescribedMemberForCli[];
}

export async function describeConsumerProtocolGroup(
  conn: KafkaConnection,
  groupId: string,
): Promise<DescribedConsumerProtocolGroup | null> {
  let v: number;
  try {
    v = conn.version(ApiKey.ConsumerGroupDescribe, 0, 0);
  } catch {
    return null; // a broker without KIP-848
  }
  const res: ConsumerGroupDescribeResponse = await conn.send(ApiKey.ConsumerGroupDescribe, v, {
    groupIds: [groupId],
    includeAuthorizedOperations: false,
  });
  const g = res.groups[0]!;
  if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return null;
  if (g.errorCode !== ErrorCode.NONE)
    throw new KafkaClientError(
      `describe consumer group ${groupId}: ${errorName(g.errorCode)}${g.errorMessage ? `: ${g.errorMessage}` : ''}`,
      g.errorCode,
    );
  return {
    groupType: 'consumer',
    state: g.groupState,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignor: g.assignorName,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId ?? null,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberEpoch: m.memberEpoch,
      subscription: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex ?? null,
      assignment: m.assignment.topicPartitions.map((t) => ({
        topic: t.topicName,
        partitions: [...t.partitions].sort((a, b) => a - b),
      })),
    })),
  };
}
