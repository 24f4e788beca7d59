// The partitions a Produce request names, each once. Kafka keys a produce by partition
// (KafkaApis.handleProduceRequest builds a map): a partition named twice, even under a topic named
// twice, is produced once, with its last records, and answered once, in the order of first mention.
// Nearly every request names each partition once: then the request's own arrays are the answer, and
// nothing is allocated (the Maps and their iterators were ~1.8 KB of garbage per seed request).
import type { ProduceRequestTopicProduceData } from '../protocol/messages';

/** Up to this many names are compared pairwise; more go through a Set. */
const PAIRWISE_MAX = 16;

function hasDuplicate<T>(items: readonly T[], key: (item: T) => string | number): boolean {
  const n = items.length;
  if (n < 2) return false;
  if (n <= PAIRWISE_MAX) {
    for (let i = 1; i < n; i++) {
      const k = key(items[i]!);
      for (let j = 0; j < i; j++) if (key(items[j]!) === k) return true;
    }
    return false;
  }
  const seen = new Set<string | number>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

const topicName = (t: ProduceRequestTopicProduceData) => t.name;
const partitionIndex = (p: ProduceRequestTopicProduceData['partitionData'][number]) => p.index;

/** The request's topics and partitions with each partition once (its last records), in first-mention order. */
export function producedPartitions(
  topicData: readonly ProduceRequestTopicProduceData[],
): readonly ProduceRequestTopicProduceData[] {
  let unique = !hasDuplicate(topicData, topicName);
  for (let i = 0; unique && i < topicData.length; i++)
    if (hasDuplicate(topicData[i]!.partitionData, partitionIndex)) unique = false;
  if (unique) return topicData;
  const byTopic = new Map<string, Map<number, Buffer | null>>();
  for (const t of topicData) {
    const parts = byTopic.get(t.name) ?? new Map<number, Buffer | null>();
    byTopic.set(t.name, parts);
    for (const p of t.partitionData) parts.set(p.index, p.records);
  }
  return [...byTopic].map(([name, parts]) => ({
    name,
    partitionData: [...parts].map(([index, records]) => ({ index, records })),
  }));
}
