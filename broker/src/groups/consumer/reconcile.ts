// Moves one member from its current assignment toward the group's target assignment, a step at a
// time: Kafka's CurrentAssignmentBuilder (modern/consumer/CurrentAssignmentBuilder.java). The rule
// that makes a rebalance incremental: a partition is given to its new owner only once no other
// member holds it (its "partition epoch" is -1), and a member that must give partitions up keeps
// its epoch (UNREVOKED_PARTITIONS) until a heartbeat no longer lists them as owned.
import { Assignment, TopicPartitions } from './assignment';
import { ConsumerMember, MemberState, withEpoch } from './member';

/** The epoch of the member owning a partition now, or -1 when it is free. */
export type PartitionEpochOf = (topicId: string, partition: number) => number;

export interface ReconcileInput {
  targetAssignmentEpoch: number;
  /** The member's part of the target assignment. */
  targetAssignment: Assignment;
  currentPartitionEpoch: PartitionEpochOf;
  /** What the heartbeat says the member owns; null when it did not say (unchanged). */
  ownedTopicPartitions: readonly TopicPartitions[] | null;
}

/** The member's next state, or the same object when it cannot move forward yet. */
export function reconcile(member: ConsumerMember, input: ReconcileInput): ConsumerMember {
  switch (member.state) {
    case MemberState.STABLE:
      if (member.memberEpoch !== input.targetAssignmentEpoch)
        return nextAssignment(member, member.memberEpoch, member.assignedPartitions, input);
      return member;
    case MemberState.UNREVOKED_PARTITIONS:
      // Revoked once the heartbeat no longer lists them; then on to the next epoch.
      if (ownsAnyOf(input.ownedTopicPartitions, member.partitionsPendingRevocation)) return member;
      return nextAssignment(member, member.memberEpoch + 1, member.assignedPartitions, input);
    case MemberState.UNRELEASED_PARTITIONS:
      return nextAssignment(member, member.memberEpoch, member.assignedPartitions, input);
  }
}

/** True when `owned` (null: not said, so assumed still owned) lists any partition of `pending`. */
export function ownsAnyOf(owned: readonly TopicPartitions[] | null, pending: Assignment): boolean {
  if (owned === null) return true;
  for (const { topicId, partitions } of owned) {
    const set = pending.get(topicId);
    if (set && partitions.some((p) => set.has(p))) return true;
  }
  return false;
}

function nextAssignment(
  member: ConsumerMember,
  memberEpoch: number,
  current: Assignment,
  input: ReconcileInput,
): ConsumerMember {
  const target = input.targetAssignment;
  let hasUnreleased = false;
  const assigned = new Map<string, Set<number>>();
  const pendingRevocation = new Map<string, Set<number>>();
  const pendingAssignment = new Map<string, Set<number>>();
  for (const topicId of new Set([...target.keys(), ...current.keys()])) {
    const wanted = target.get(topicId) ?? new Set<number>();
    const held = current.get(topicId) ?? new Set<number>();
    // Kept = held ∩ target; to revoke = held - kept; to receive = target - kept, once released.
    const kept = new Set([...held].filter((p) => wanted.has(p)));
    const revoke = new Set([...held].filter((p) => !kept.has(p)));
    const receive = new Set<number>();
    for (const p of wanted) {
      if (kept.has(p)) continue;
      if (input.currentPartitionEpoch(topicId, p) !== -1) hasUnreleased = true;
      else receive.add(p);
    }
    if (kept.size > 0) assigned.set(topicId, kept);
    if (revoke.size > 0) pendingRevocation.set(topicId, revoke);
    if (receive.size > 0) pendingAssignment.set(topicId, receive);
  }
  if (pendingRevocation.size > 0 && ownsAnyOf(input.ownedTopicPartitions, pendingRevocation)) {
    // Revoke first, keeping the epoch: the member's next heartbeat without them moves it on.
    return {
      ...withEpoch(member, memberEpoch),
      state: MemberState.UNREVOKED_PARTITIONS,
      assignedPartitions: assigned,
      partitionsPendingRevocation: pendingRevocation,
    };
  }
  for (const [topicId, ps] of pendingAssignment) {
    let set = assigned.get(topicId);
    if (!set) assigned.set(topicId, (set = new Set()));
    for (const p of ps) set.add(p);
  }
  return {
    ...withEpoch(member, input.targetAssignmentEpoch),
    state: hasUnreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
    assignedPartitions: assigned,
    partitionsPendingRevocation: new Map(),
  };
}
