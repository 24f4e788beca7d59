// A share group's membership to and from the stored group rows (storage/group-metadata.ts), as the
// KIP-848 consumer groups do (consumer/consumer-persistence.ts): Kafka keeps share groups in its
// offsets log too (ShareGroupMetadataValue, ShareGroupMemberMetadataValue). The protocol name
// SHARE_GROUP_MARK says "a share group"; the group epoch is the generation; the leader column holds
// the assignment epoch; each member row carries its epoch, rack and subscription as JSON in
// `subscription` and its assignment in `assignment`. Loaded back, members carry on with the same
// ids and epochs: a broker restart, or another broker taking the group over on postgres://, does
// not make them join again.
import type { StoredGroup } from '../../storage/group-metadata';
import { ShareGroup, type ShareMember } from './share-group';

/** The protocol name marking a stored share group (no client assignor has this name). */
export const SHARE_GROUP_MARK = '@kip932';

interface StoredShareMember {
  memberEpoch: number;
  rackId: string | null;
  subscribedTopicNames: string[];
}

export function isStoredShareGroup(stored: StoredGroup): boolean {
  return stored.protocolName === SHARE_GROUP_MARK;
}

export function storedShareGroup(group: ShareGroup, nowMs: number, sessionTimeoutMs: number): StoredGroup {
  return {
    groupId: group.groupId,
    protocolType: 'share',
    generationId: group.groupEpoch,
    protocolName: SHARE_GROUP_MARK,
    leaderId: JSON.stringify({ assignmentEpoch: group.assignmentEpoch }),
    updatedMs: nowMs,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: null,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: 0,
      sessionTimeoutMs,
      subscription: Buffer.from(
        JSON.stringify({
          memberEpoch: m.memberEpoch,
          rackId: m.rackId,
          subscribedTopicNames: m.subscribedTopicNames,
        } satisfies StoredShareMember),
      ),
      assignment: Buffer.from(JSON.stringify([...m.assignment.entries()])),
    })),
  };
}

export function restoredShareGroup(stored: StoredGroup): ShareGroup {
  const group = new ShareGroup(stored.groupId);
  group.groupEpoch = stored.generationId;
  const facts = JSON.parse(stored.leaderId ?? '{}') as { assignmentEpoch?: number };
  group.assignmentEpoch = facts.assignmentEpoch ?? stored.generationId;
  for (const row of stored.members) {
    const s = JSON.parse(row.subscription.toString('utf8')) as StoredShareMember;
    const member: ShareMember = {
      memberId: row.memberId,
      memberEpoch: s.memberEpoch,
      rackId: s.rackId,
      clientId: row.clientId,
      clientHost: row.clientHost,
      subscribedTopicNames: s.subscribedTopicNames,
      assignment: new Map(JSON.parse(row.assignment.toString('utf8')) as Array<[string, number[]]>),
    };
    group.members.set(member.memberId, member);
  }
  return group;
}
