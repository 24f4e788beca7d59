// `minnow group describe` of a KIP-932 share group: ShareGroupDescribe (key 77) for its members and
// their assignments, DescribeShareGroupOffsets (key 90) for each share-partition's start offset, and
// the end offset (ListOffsets latest). Null when the broker has no key 77 or the group is not a share
// group. Works against minnow or Kafka 4.1+ with share groups enabled.
import type { KafkaConnection } from '../client/connection';
import { KafkaClientError } from '../client/connection';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { DescribeShareGroupOffsetsResponse, ShareGroupDescribeResponse } from '../protocol/messages';
import type { DescribedMemberForCli } from './consumer-group-describe';

export interface ShareOffsetForCli {
  topic: string;
  partition: number;
  /** The share-partition start offset: every record below it was acknowledged or archived; null: none yet. */
  startOffset: number | null;
  endOffset: number;
  /** Records from the start offset to the end: not yet delivered, in flight, or done above the start. */
  notBeforeStart: number | null;
}

export interface DescribedShareGroup {
  groupType: 'share';
  state: string;
  protocolType: 'share';
  groupEpoch: number;
  assignmentEpoch: number;
  assignor: string;
  members: DescribedMemberForCli[];
  offsets: ShareOffsetForCli[];
}

const fail = (what: string, errorCode: number, message?: string | null): never => {
  throw new KafkaClientError(`${what}: ${errorName(errorCode)}${message ? `: ${message}` : ''}`, errorCode);
};

export async function describeShareGroup(
  conn: KafkaConnection,
  groupId: string,
  endOffset: (topic: string, partition: number) => Promise<number>,
): Promise<DescribedShareGroup | null> {
  let v: number;
  try {
    v = conn.version(ApiKey.ShareGroupDescribe, 1, 1);
  } catch {
    return null; // a broker without KIP-932
  }
  const res: ShareGroupDescribeResponse = await conn.send(ApiKey.ShareGroupDescribe, v, {
    groupIds: [groupId],
    includeAuthorizedOperations: false,
  });
  const g = res.groups[0]!;
  if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return null;
  if (g.errorCode !== ErrorCode.NONE) fail(`describe share group ${groupId}`, g.errorCode, g.errorMessage);
  const members: DescribedMemberForCli[] = g.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: null,
    clientId: m.clientId,
    clientHost: m.clientHost,
    memberEpoch: m.memberEpoch,
    subscription: m.subscribedTopicNames,
    assignment: m.assignment.topicPartitions.map((t) => ({
      topic: t.topicName,
      partitions: [...t.partitions].sort((a, b) => a - b),
    })),
  }));
  const o: DescribeShareGroupOffsetsResponse = await conn.send(
    ApiKey.DescribeShareGroupOffsets,
    conn.version(ApiKey.DescribeShareGroupOffsets, 0, 0),
    { groups: [{ groupId, topics: null }] },
  );
  const og = o.groups[0]!;
  if (og.errorCode !== ErrorCode.NONE)
    fail(`describe the offsets of share group ${groupId}`, og.errorCode, og.errorMessage);
  const offsets: ShareOffsetForCli[] = [];
  for (const t of og.topics)
    for (const p of t.partitions) {
      const start = p.startOffset < 0n ? null : Number(p.startOffset);
      const end = await endOffset(t.topicName, p.partitionIndex);
      offsets.push({
        topic: t.topicName,
        partition: p.partitionIndex,
        startOffset: start,
        endOffset: end,
        notBeforeStart: start === null || end < 0 ? null : Math.max(0, end - start),
      });
    }
  offsets.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  return {
    groupType: 'share',
    state: g.groupState,
    protocolType: 'share',
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignor: g.assignorName,
    members,
    offsets,
  };
}
