// A KIP-848 consumer group to and from the stored group rows (storage/group-metadata.ts), which
// classic groups use too: Kafka keeps both kinds in its offsets log. The group epoch is the
// generation; the protocol name CONSUMER_GROUP_MARK says "a consumer-protocol group" (classic
// groups store the name of a client assignor there); the leader column (no leader here) holds
// the group's own facts as JSON (assignor, the topics its subscriptions resolved to); each member row carries the member's state
// (epochs, subscription, assigned and pending partitions) as JSON in `subscription` and its
// target assignment in `assignment` (classic-protocol members: also their JoinGroup protocols).
// Loaded back, members carry on with the same ids and epochs:
// a broker restart does not make a group rebalance.
import type { StoredGroup } from '../../storage/group-metadata';
import { Assignment, fromTopicPartitions, toTopicPartitions, TopicPartitions } from './assignment';
import { ConsumerGroup } from './consumer-group';
import { ConsumerMember, MemberState } from './member';
import type { TopicFacts } from './topics-view';

/** The protocol name marking a stored consumer-protocol group (no client assignor has this name). */
export const CONSUMER_GROUP_MARK = '@kip848';

interface StoredMemberState {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  rackId: string | null;
  subscribedTopicNames: readonly string[];
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  assigned: TopicPartitions[];
  pendingRevocation: TopicPartitions[];
  /** A classic-protocol member's session timeout and JoinGroup protocols (metadata in base64). */
  classic?: { sessionTimeoutMs: number; protocols: { name: string; metadata: string }[] } | null;
}

interface StoredGroupFacts {
  assignor: string;
  /** The target assignment's epoch (below the group epoch after a member left, until the next heartbeat). */
  assignmentEpoch?: number;
  topics: TopicFacts[];
}

export function isStoredConsumerGroup(stored: StoredGroup): boolean {
  return stored.protocolName === CONSUMER_GROUP_MARK;
}

export function storedConsumerGroup(group: ConsumerGroup, nowMs: number, sessionTimeoutMs: number): StoredGroup {
  return {
    groupId: group.groupId,
    protocolType: 'consumer',
    generationId: group.groupEpoch,
    protocolName: CONSUMER_GROUP_MARK,
    leaderId: JSON.stringify({
      assignor: group.assignorName,
      assignmentEpoch: group.assignmentEpoch,
      topics: [...group.subscriptionMetadata.values()],
    } satisfies StoredGroupFacts),
    updatedMs: nowMs,
    members: [...group.members.values()].map((m) => {
      const state: StoredMemberState = {
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        state: m.state,
        rackId: m.rackId,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        serverAssignor: m.serverAssignor,
        assigned: toTopicPartitions(m.assignedPartitions),
        pendingRevocation: toTopicPartitions(m.partitionsPendingRevocation),
        classic:
          m.classic === null
            ? null
            : {
                sessionTimeoutMs: m.classic.sessionTimeoutMs,
                protocols: m.classic.protocols.map((p) => ({ name: p.name, metadata: p.metadata.toString('base64') })),
              },
      };
      return {
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs,
        subscription: Buffer.from(JSON.stringify(state)),
        assignment: Buffer.from(JSON.stringify(toTopicPartitions(group.targetAssignment.get(m.memberId) ?? new Map()))),
      };
    }),
  };
}

/**
 * The stored group back in memory, with its target assignment and that assignment's epoch; the subscribed topics are
 * compared with the broker's again at the first heartbeat (metadataVersion -1), which bumps the
 * epoch only if they changed meanwhile.
 */
export function restoredConsumerGroup(stored: StoredGroup): ConsumerGroup {
  const group = new ConsumerGroup(stored.groupId);
  group.groupEpoch = stored.generationId;
  const facts = JSON.parse(stored.leaderId ?? '{"assignor":"","topics":[]}') as StoredGroupFacts;
  group.assignorName = facts.assignor;
  group.assignmentEpoch = facts.assignmentEpoch ?? stored.generationId;
  group.subscriptionMetadata = new Map(facts.topics.map((t) => [t.name, t] as const));
  for (const row of stored.members) {
    const s = JSON.parse(row.subscription.toString('utf8')) as StoredMemberState;
    const member: ConsumerMember = {
      memberId: row.memberId,
      instanceId: row.groupInstanceId,
      rackId: s.rackId,
      clientId: row.clientId,
      clientHost: row.clientHost,
      memberEpoch: s.memberEpoch,
      previousMemberEpoch: s.previousMemberEpoch,
      state: s.state,
      rebalanceTimeoutMs: row.rebalanceTimeoutMs,
      subscribedTopicNames: s.subscribedTopicNames,
      subscribedTopicRegex: s.subscribedTopicRegex,
      serverAssignor: s.serverAssignor,
      assignedPartitions: fromTopicPartitions(s.assigned),
      partitionsPendingRevocation: fromTopicPartitions(s.pendingRevocation),
      classic: s.classic
        ? {
            sessionTimeoutMs: s.classic.sessionTimeoutMs,
            protocols: s.classic.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') })),
          }
        : null,
    };
    group.updateMember(member);
    const target: Assignment = fromTopicPartitions(JSON.parse(row.assignment.toString('utf8')) as TopicPartitions[]);
    group.targetAssignment.set(row.memberId, target);
  }
  return group;
}
