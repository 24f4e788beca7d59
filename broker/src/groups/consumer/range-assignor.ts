// The `range` server-side assignor (Kafka's RangeAssignor for consumer groups): per topic, the
// members subscribed to it (static members by instance id, then by member id) each take a
// contiguous range of partitions, the first `partitions % members` one more. Members subscribed to
// the same topics with the same partition counts get the same partition numbers of each topic
// (co-partitioning, what joins in Kafka Streams rely on).
import { AssignmentBuilder } from './assignment';
import { PartitionAssignor, sortedMembers, sortedTopics } from './assignor';

export const rangeAssignor: PartitionAssignor = {
  name: 'range',
  assign(members, topics) {
    const ordered = sortedMembers(members);
    const out = new Map<string, AssignmentBuilder>(ordered.map((m) => [m.memberId, new AssignmentBuilder()]));
    for (const t of sortedTopics(topics)) {
      const subscribed = ordered.filter((m) => m.subscribedTopicIds.has(t.topicId));
      if (subscribed.length === 0) continue;
      const base = Math.floor(t.partitionCount / subscribed.length);
      const extra = t.partitionCount % subscribed.length;
      let next = 0;
      subscribed.forEach((m, i) => {
        const n = base + (i < extra ? 1 : 0);
        for (let k = 0; k < n; k++) out.get(m.memberId)!.add(t.topicId, next++);
      });
    }
    return new Map([...out].map(([id, b]) => [id, b.build()] as const));
  },
};
