// The server-side assignors of KIP-848 (Kafka's ConsumerGroupPartitionAssignor): the coordinator,
// not a client, computes the target assignment. `group.consumer.assignors` names the ones offered
// (the first is the default); a member may ask for one with ConsumerGroupHeartbeat's ServerAssignor.
import type { Assignment } from './assignment';

export interface AssignorMember {
  memberId: string;
  instanceId: string | null;
  /** Ids of the existing topics it subscribes to (names and regex resolved). */
  subscribedTopicIds: ReadonlySet<string>;
  /** Its part of the current target assignment (the assignors keep what they can: stickiness). */
  currentAssignment: Assignment;
}

export interface AssignorTopic {
  topicId: string;
  name: string;
  partitionCount: number;
}

export interface PartitionAssignor {
  readonly name: string;
  /** Every member's new target assignment (members without partitions map to an empty one). */
  assign(members: readonly AssignorMember[], topics: ReadonlyMap<string, AssignorTopic>): Map<string, Assignment>;
}

/** Members in a stable order (static members by instance id, as Kafka sorts them, then member id). */
export function sortedMembers(members: readonly AssignorMember[]): AssignorMember[] {
  const key = (m: AssignorMember) => m.instanceId ?? `\uffff${m.memberId}`;
  return [...members].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Topics sorted by name, so partitions are dealt out in the same order every time. */
export function sortedTopics(topics: ReadonlyMap<string, AssignorTopic>): AssignorTopic[] {
  return [...topics.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
