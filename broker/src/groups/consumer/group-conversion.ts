// Online conversion between a classic group and a KIP-848 consumer group (Kafka's
// GroupMetadataManager.validateOnlineUpgrade / validateOnlineDowngradeWithFencedMember,
// ConsumerGroup.fromClassicGroup, ClassicGroup.fromConsumerGroup), as pure functions: the callers
// (consumer-coordinator.ts, consumer-sessions.ts) move the group between the two coordinators.
// Upgrade: a ConsumerGroupHeartbeat joins a classic group whose members use the `consumer`
// embedded protocol; each classic member becomes a classic-protocol member of the consumer group
// with its last assignment. Downgrade: the last consumer-protocol member leaves a group whose
// other members are classic; they become a Stable classic group with their target assignment,
// which then rebalances; likewise when a classic static member replaces the last consumer-protocol
// one (then a rebalance only if its subscription differs). https://cwiki.apache.org/confluence/x/HhD1D
// (KIP-848, "Upgrade/Downgrade")
import { consumerAssignment, consumerSubscription, encodeAssignment } from '../../protocol/consumer-protocol';
import { Group, Member } from '../group';
import { GroupState } from '../group-state';
import type { Assignment } from './assignment';
import { ConsumerGroup } from './consumer-group';
import { ConsumerMember, MemberState } from './member';
import type { TopicFacts, TopicsView } from './topics-view';

/** group.consumer.migration.policy (Kafka's ConsumerGroupMigrationPolicy); Kafka 4's default is bidirectional. */
export const MIGRATION_POLICIES = ['bidirectional', 'upgrade', 'downgrade', 'disabled'] as const;
export type MigrationPolicy = (typeof MIGRATION_POLICIES)[number];

export const upgradeEnabled = (p: MigrationPolicy): boolean => p === 'bidirectional' || p === 'upgrade';
export const downgradeEnabled = (p: MigrationPolicy): boolean => p === 'bidirectional' || p === 'downgrade';

/** The highest ConsumerProtocolAssignment version minnow writes (a member's own version, capped). */
const MAX_ASSIGNMENT_VERSION = 3;

/** Why a classic group with members cannot become a consumer group now, or null when it can. */
export function upgradeRefusal(classic: Group, policy: MigrationPolicy, maxSize: number): string | null {
  if (!upgradeEnabled(policy))
    return `the online upgrade is disabled (group.consumer.migration.policy=${policy}): stop the classic members first, or allow upgrade`;
  if (classic.protocolType !== 'consumer')
    return `its members use the protocol type ${JSON.stringify(classic.protocolType)}, not the consumer embedded protocol`;
  if (classic.size > maxSize) return `its ${classic.size} members exceed group.consumer.max.size=${maxSize}`;
  return null;
}

/** Kafka's validateOnlineDowngradeWithFencedMember: true when removing `memberId` should make the group classic. */
export function shouldDowngrade(group: ConsumerGroup, memberId: string, policy: MigrationPolicy): boolean {
  // Unlike a replacement, a removal must leave someone to be the classic group.
  return group.size > 1 && shouldDowngradeOnReplace(group, memberId, policy);
}

/**
 * Kafka's validateOnlineDowngradeWithReplacedMember: true when a classic static member replacing
 * `replacedMemberId` (the group's last consumer-protocol member) should make the group classic.
 */
export function shouldDowngradeOnReplace(
  group: ConsumerGroup,
  replacedMemberId: string,
  policy: MigrationPolicy,
): boolean {
  return group.allMembersUseClassicProtocolExcept(replacedMemberId) && downgradeEnabled(policy);
}

/**
 * The consumer group a classic group becomes: the group epoch is the generation, each member is
 * Stable at that epoch with its last assignment (also its target), its subscription from its
 * metadata. Throws (an Error naming the member) when a member's embedded protocol is malformed.
 */
export function consumerGroupFromClassic(classic: Group, topics: TopicsView): ConsumerGroup {
  const group = new ConsumerGroup(classic.groupId);
  group.groupEpoch = classic.generationId;
  group.assignmentEpoch = classic.generationId;
  for (const m of classic.members.values()) {
    const metadata = m.metadataFor(classic.protocolName ?? m.protocols[0]?.name ?? '');
    const subscription = consumerSubscription(metadata);
    if (!subscription) throw new Error(`member ${m.memberId}'s subscription is not a consumer protocol subscription`);
    const decoded = m.assignment.length === 0 ? { assignedPartitions: [] } : consumerAssignment(m.assignment);
    if (!decoded) throw new Error(`member ${m.memberId}'s assignment is not a consumer protocol assignment`);
    const assigned = new Map<string, Set<number>>();
    for (const tp of decoded.assignedPartitions) {
      const t = topics.byName.get(tp.topic);
      if (!t) continue; // a topic deleted meanwhile: nothing to own
      const set = assigned.get(t.topicId) ?? new Set<number>();
      for (const p of tp.partitions) if (p < t.partitionCount) set.add(p);
      assigned.set(t.topicId, set);
    }
    const member: ConsumerMember = {
      memberId: m.memberId,
      instanceId: m.groupInstanceId,
      rackId: subscription.rackId ?? null,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberEpoch: classic.generationId,
      previousMemberEpoch: classic.generationId,
      state: MemberState.STABLE,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      subscribedTopicNames: [...new Set(subscription.topics)].sort(),
      subscribedTopicRegex: null,
      serverAssignor: null,
      assignedPartitions: assigned,
      partitionsPendingRevocation: new Map(),
      classic: { sessionTimeoutMs: m.sessionTimeoutMs, protocols: m.protocols.map((p) => ({ ...p })) },
    };
    group.updateMember(member);
    group.targetAssignment.set(m.memberId, assigned);
  }
  return group;
}

/**
 * The classic group a consumer group becomes without `leavingMemberId`: Stable at the group
 * epoch, protocol type `consumer`, the protocol the members vote for, and each member's target
 * assignment as its assignment (in its own ConsumerProtocolAssignment version). The caller
 * starts a rebalance, as Kafka does.
 */
export function classicGroupFromConsumer(
  group: ConsumerGroup,
  leavingMemberId: string,
  topicsById: ReadonlyMap<string, TopicFacts>,
): Group {
  const classic = new Group(group.groupId);
  classic.generationId = group.groupEpoch;
  for (const m of group.members.values()) {
    if (m.memberId === leavingMemberId || m.classic === null) continue;
    const member = new Member(
      m.memberId,
      m.instanceId,
      m.clientId,
      m.clientHost,
      m.rebalanceTimeoutMs,
      m.classic.sessionTimeoutMs,
      'consumer',
      m.classic.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
    );
    member.isNew = false;
    classic.add(member);
  }
  classic.protocolType = 'consumer';
  classic.protocolName = classic.selectProtocol();
  for (const member of classic.members.values()) {
    const target = group.targetAssignment.get(member.memberId) ?? new Map<string, ReadonlySet<number>>();
    member.assignment = encodeAssignment(
      { assignedPartitions: assignmentByName(target, topicsById), userData: null },
      Math.min(protocolVersion(member.metadataFor(classic.protocolName)), MAX_ASSIGNMENT_VERSION),
    );
  }
  // Built, not reached by a transition: as Kafka's fromConsumerGroup, the group starts Stable.
  classic.state = GroupState.Stable;
  return classic;
}

/** An assignment by topic id as the consumer protocol's (topic name, partitions), sorted. */
export function assignmentByName(
  a: Assignment,
  topicsById: ReadonlyMap<string, TopicFacts>,
): { topic: string; partitions: number[] }[] {
  const out: { topic: string; partitions: number[] }[] = [];
  for (const [topicId, ps] of a) {
    const t = topicsById.get(topicId);
    if (t && ps.size > 0) out.push({ topic: t.name, partitions: [...ps].sort((x, y) => x - y) });
  }
  return out.sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0));
}

/** The ConsumerProtocol version prefix of a member's metadata (Kafka's deserializeVersion); 0 if none. */
export function protocolVersion(metadata: Buffer): number {
  return metadata.length >= 2 ? Math.max(0, metadata.readInt16BE(0)) : 0;
}
