// A consumer group's partitions per member (KIP-848): topic id -> partition numbers, as Kafka's
// Assignment / Map<Uuid, Set<Integer>>. Topic ids are in Kafka's string form (protocol/uuid.ts),
// the form ConsumerGroupHeartbeat carries them in.

export type Assignment = ReadonlyMap<string, ReadonlySet<number>>;

export const EMPTY_ASSIGNMENT: Assignment = new Map();

/** The wire's list of {topicId, partitions}, topics and partitions sorted (deterministic answers). */
export interface TopicPartitions {
  topicId: string;
  partitions: number[];
}

export function toTopicPartitions(a: Assignment): TopicPartitions[] {
  return [...a.entries()]
    .filter(([, ps]) => ps.size > 0)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((x, y) => x - y) }));
}

export function fromTopicPartitions(list: readonly TopicPartitions[]): Assignment {
  const out = new Map<string, Set<number>>();
  for (const { topicId, partitions } of list) {
    if (partitions.length === 0) continue;
    let set = out.get(topicId);
    if (!set) out.set(topicId, (set = new Set()));
    for (const p of partitions) set.add(p);
  }
  return out;
}

export function assignmentsEqual(a: Assignment, b: Assignment): boolean {
  const nonEmpty = (x: Assignment) => [...x.entries()].filter(([, ps]) => ps.size > 0);
  const ea = nonEmpty(a);
  if (ea.length !== nonEmpty(b).length) return false;
  for (const [topicId, ps] of ea) {
    const other = b.get(topicId);
    if (!other || other.size !== ps.size) return false;
    for (const p of ps) if (!other.has(p)) return false;
  }
  return true;
}

export function partitionCount(a: Assignment): number {
  let n = 0;
  for (const ps of a.values()) n += ps.size;
  return n;
}

export function hasPartition(a: Assignment, topicId: string, partition: number): boolean {
  return a.get(topicId)?.has(partition) ?? false;
}

/** A mutable builder: add (topicId, partition) pairs, then read it as an Assignment. */
export class AssignmentBuilder {
  private readonly byTopic = new Map<string, Set<number>>();

  add(topicId: string, partition: number): this {
    let set = this.byTopic.get(topicId);
    if (!set) this.byTopic.set(topicId, (set = new Set()));
    set.add(partition);
    return this;
  }

  get size(): number {
    return partitionCount(this.byTopic);
  }

  build(): Assignment {
    return this.byTopic;
  }
}
