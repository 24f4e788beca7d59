// One KIP-848 consumer group (Kafka's modern/consumer/ConsumerGroup.java): its group epoch (bumped
// when a member joins, leaves or changes its subscription, or the subscribed topics change), the
// target assignment and its epoch, the members, and which member epoch owns each partition now
// (a partition moves only once that is -1: revocation before assignment, reconcile.ts).
import type { Assignment } from './assignment';
import type { AssignorMember, AssignorTopic } from './assignor';
import { ConsumerMember, isReconciledTo, LEAVE_GROUP_STATIC_MEMBER_EPOCH, MemberState } from './member';
import { CompiledRegex, compileTopicRegex, regexMatchesTopic } from './topic-regex';
import type { TopicFacts, TopicsView } from './topics-view';

/** Kafka's ConsumerGroupState names, as ListGroups and ConsumerGroupDescribe show them. */
export const ConsumerGroupState = {
  Empty: 'Empty',
  Assigning: 'Assigning',
  Reconciling: 'Reconciling',
  Stable: 'Stable',
} as const;
export type ConsumerGroupState = (typeof ConsumerGroupState)[keyof typeof ConsumerGroupState];

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  /** The assignor that computed the current target assignment. */
  assignorName = '';
  readonly members = new Map<string, ConsumerMember>();
  /** group.instance.id -> member id. */
  readonly staticMembers = new Map<string, string>();
  /** Each member's target assignment (members without one have none). */
  readonly targetAssignment = new Map<string, Assignment>();
  /** The topics the subscriptions resolved to when the group epoch was last set, by name. */
  subscriptionMetadata: ReadonlyMap<string, TopicFacts> = new Map();
  /** The TopicsView version subscriptionMetadata was computed from (-1: never). */
  metadataVersion = -1;
  private readonly partitionEpochs = new Map<string, Map<number, number>>();
  private readonly regexes = new Map<string, CompiledRegex>();

  constructor(readonly groupId: string) {}

  get size(): number {
    return this.members.size;
  }

  state(): ConsumerGroupState {
    if (this.members.size === 0) return ConsumerGroupState.Empty;
    if (this.groupEpoch > this.assignmentEpoch) return ConsumerGroupState.Assigning;
    for (const m of this.members.values())
      if (!isReconciledTo(m, this.assignmentEpoch)) return ConsumerGroupState.Reconciling;
    return ConsumerGroupState.Stable;
  }

  staticMember(instanceId: string): ConsumerMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  /** The epoch of the member owning the partition (assigned or still to revoke), or -1. */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  /** Adds or replaces a member, keeping the partition owners and the static-member index right. */
  updateMember(m: ConsumerMember): void {
    const old = this.members.get(m.memberId);
    if (old) this.releasePartitions(old);
    this.members.set(m.memberId, m);
    if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId);
    this.claimPartitions(m);
  }

  removeMember(memberId: string): ConsumerMember | undefined {
    const old = this.members.get(memberId);
    if (!old) return undefined;
    this.releasePartitions(old);
    this.members.delete(memberId);
    this.targetAssignment.delete(memberId);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId)
      this.staticMembers.delete(old.instanceId);
    return old;
  }

  /**
   * The topics the members' subscriptions (names and regexes) resolve to in `view`, by name:
   * what the target assignment is computed over. A change of it bumps the group epoch.
   */
  resolveSubscriptions(view: TopicsView): Map<string, TopicFacts> {
    const out = new Map<string, TopicFacts>();
    const regexes = new Set<string>();
    for (const m of this.members.values()) {
      for (const name of m.subscribedTopicNames) {
        const t = view.byName.get(name);
        if (t) out.set(name, t);
      }
      if (m.subscribedTopicRegex !== null) regexes.add(m.subscribedTopicRegex);
    }
    for (const source of regexes) {
      const re = this.regex(source);
      if (!re) continue;
      for (const t of view.byName.values()) if (regexMatchesTopic(re, t.name)) out.set(t.name, t);
    }
    return out;
  }

  /** The members as the assignor sees them: the topic ids each subscribes to, its current target. */
  assignorMembers(): AssignorMember[] {
    const topics = this.subscriptionMetadata;
    return [...this.members.values()].map((m) => {
      const ids = new Set<string>();
      for (const name of m.subscribedTopicNames) {
        const t = topics.get(name);
        if (t) ids.add(t.topicId);
      }
      const re = m.subscribedTopicRegex === null ? undefined : this.regex(m.subscribedTopicRegex);
      if (re) for (const t of topics.values()) if (regexMatchesTopic(re, t.name)) ids.add(t.topicId);
      return {
        memberId: m.memberId,
        instanceId: m.instanceId,
        subscribedTopicIds: ids,
        currentAssignment: this.targetAssignment.get(m.memberId) ?? new Map(),
      };
    });
  }

  assignorTopics(): Map<string, AssignorTopic> {
    return new Map([...this.subscriptionMetadata.values()].map((t) => [t.topicId, { ...t }] as const));
  }

  /** The assignor most members asked for (ties: the first asked), else `fallback`. */
  preferredAssignor(fallback: string): string {
    const votes = new Map<string, number>();
    for (const m of this.members.values())
      if (m.serverAssignor !== null) votes.set(m.serverAssignor, (votes.get(m.serverAssignor) ?? 0) + 1);
    let best = fallback;
    let most = 0;
    for (const [name, n] of votes) if (n > most) [best, most] = [name, n];
    return best;
  }

  /** Members that speak the classic protocol (JoinGroup/SyncGroup) inside this group. */
  get classicMemberCount(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.classic !== null) n += 1;
    return n;
  }

  /**
   * Kafka's supportsClassicProtocols: a classic member may join with protocol type `consumer` and
   * one protocol name every classic member already in the group supports (any, if none is).
   */
  supportsClassicProtocols(protocolType: string, names: readonly string[]): boolean {
    if (protocolType !== 'consumer' || names.length === 0) return false;
    const classic = [...this.members.values()].filter((m) => m.classic !== null);
    return names.some((n) => classic.every((m) => m.classic!.protocols.some((p) => p.name === n)));
  }

  /** Kafka's allMembersUseClassicProtocolExcept: every member but `memberId` (a consumer-protocol one) is classic. */
  allMembersUseClassicProtocolExcept(memberId: string): boolean {
    const m = this.members.get(memberId);
    return m !== undefined && m.classic === null && this.classicMemberCount === this.members.size - 1;
  }

  /** Kafka's waitingOnUnreleasedPartition: a partition of its target is still owned by another member. */
  waitingOnUnreleasedPartition(m: ConsumerMember): boolean {
    if (m.state !== MemberState.UNRELEASED_PARTITIONS) return false;
    for (const [topicId, ps] of this.targetAssignment.get(m.memberId) ?? new Map<string, Set<number>>()) {
      const held = m.assignedPartitions.get(topicId);
      for (const p of ps) if (!held?.has(p) && this.currentPartitionEpoch(topicId, p) !== -1) return true;
    }
    return false;
  }

  /** Static members that left with epoch -2 and have not come back. */
  isTemporarilyGone(m: ConsumerMember): boolean {
    return m.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH;
  }

  private regex(source: string): RegExp | undefined {
    let c = this.regexes.get(source);
    if (!c) this.regexes.set(source, (c = compileTopicRegex(source)));
    return c.ok ? c.regex : undefined;
  }

  private claimPartitions(m: ConsumerMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation]) {
      for (const [topicId, ps] of a) {
        let epochs = this.partitionEpochs.get(topicId);
        if (!epochs) this.partitionEpochs.set(topicId, (epochs = new Map()));
        for (const p of ps) epochs.set(p, m.memberEpoch);
      }
    }
  }

  private releasePartitions(m: ConsumerMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation]) {
      for (const [topicId, ps] of a) {
        const epochs = this.partitionEpochs.get(topicId);
        if (!epochs) continue;
        for (const p of ps) if (epochs.get(p) === m.memberEpoch) epochs.delete(p);
        if (epochs.size === 0) this.partitionEpochs.delete(topicId);
      }
    }
  }
}
