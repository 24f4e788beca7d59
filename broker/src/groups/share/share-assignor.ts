// The share groups' "simple" assignor (KIP-932; Kafka 4.1's group/assignor/SimpleAssignor): while a
// topic's partitions are at least as many as the members subscribed to it, each partition goes to
// one member and the members get as many as each other; a member left without any (more members
// than partitions) shares the partition fewest members hold, so every member reads something.
// Kafka starts from a hash of the member ids and keeps earlier assignments; this one deals the
// partitions out in order (members by id), which gives the same shape: librdkafka's share tests
// expect two members of a four-partition topic to read two partitions each, not to race for all.
import type { ShareAssignment, TopicView } from './share-group';

export interface AssignorMember {
  memberId: string;
  subscribedTopicNames: readonly string[];
}

/** Every member's assignment (member id -> topic id -> sorted partitions). */
export function simpleAssignor(
  members: Iterable<AssignorMember>,
  topics: ReadonlyMap<string, TopicView>,
): Map<string, ShareAssignment> {
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const subscribers = new Map<string, string[]>(); // topic name -> member ids, sorted
  for (const m of sorted) {
    for (const name of new Set(m.subscribedTopicNames)) {
      const list = subscribers.get(name) ?? [];
      list.push(m.memberId);
      subscribers.set(name, list);
    }
  }
  const load = new Map(sorted.map((m) => [m.memberId, 0]));
  const holders: Array<{ topic: TopicView; partition: number; memberIds: string[] }> = [];
  for (const name of [...subscribers.keys()].sort()) {
    const topic = topics.get(name);
    if (!topic) continue;
    const eligible = subscribers.get(name)!;
    for (let partition = 0; partition < topic.partitionCount; partition++) {
      const least = eligible.reduce((best, id) => (load.get(id)! < load.get(best)! ? id : best));
      load.set(least, load.get(least)! + 1);
      holders.push({ topic, partition, memberIds: [least] });
    }
  }
  // Members still without a partition share one: of their topics' partitions, the one held by fewest.
  for (const m of sorted) {
    if (load.get(m.memberId)! > 0) continue;
    const mine = holders.filter((h) => m.subscribedTopicNames.includes(h.topic.name));
    if (mine.length === 0) continue;
    const fewest = mine.reduce((best, h) => (h.memberIds.length < best.memberIds.length ? h : best));
    fewest.memberIds.push(m.memberId);
    load.set(m.memberId, 1);
  }

  const out = new Map<string, ShareAssignment>(sorted.map((m) => [m.memberId, new Map()]));
  for (const { topic, partition, memberIds } of holders) {
    for (const id of memberIds) {
      const assignment = out.get(id)!;
      assignment.set(topic.topicId, [...(assignment.get(topic.topicId) ?? []), partition]);
    }
  }
  return out;
}
