// minnow_consumer_group_lag{group} and minnow_consumer_group_lag_max, computed at scrape time from
// storage: what `kafka-consumer-groups --describe` sums, without asking the broker over Kafka.
import type { Storage } from '../../storage/storage';

/**
 * Committed offsets read per turn of the event loop. Storage answers from memory or SQLite without
 * a real wait, so without yields a scrape of 1,000 groups x 4 partitions ran as one 14-76 ms
 * stretch, every client waiting (issue 29). Measured, 1,000 groups x 4 partitions on SQLite: one
 * 100-217 ms stretch before; with 256 reads per turn the longest turn was 16-38 ms (load average
 * 20 on 2 vCPUs), so 128.
 */
export const LAG_OFFSETS_PER_TURN = 128;

export interface GroupLag {
  group: string;
  /** Sum over the group's committed partitions of (high watermark - committed offset). */
  lag: number;
}

export interface ConsumerLag {
  /** The `limit` groups with the largest lag (ties by name), largest first. */
  groups: GroupLag[];
  /** The largest lag of all groups (0 without groups): one series for an alarm. */
  max: number;
  /** Groups with committed offsets, all of them (also those past `limit`). */
  groupCount: number;
}

/**
 * Lag of every group with committed offsets. A partition whose topic is gone, or whose committed
 * offset is negative (no position), adds nothing; a committed offset past the high watermark (a
 * topic deleted and made again) counts 0, not a negative lag. One high-watermark read per
 * partition per scrape, however many groups commit to it. Yields to the event loop after every
 * `offsetsPerTurn` committed offsets, so requests are served between the slices of a scrape.
 */
export async function consumerLag(
  storage: Storage,
  limit: number,
  offsetsPerTurn = LAG_OFFSETS_PER_TURN,
): Promise<ConsumerLag> {
  const highWatermarks = new Map<string, number | undefined>();
  const highWatermark = async (topic: string, partition: number) => {
    const key = `${partition}:${topic}`;
    if (!highWatermarks.has(key)) highWatermarks.set(key, (await storage.offsets(topic, partition))?.highWatermark);
    return highWatermarks.get(key);
  };
  const all: GroupLag[] = [];
  let sinceYield = 0;
  for (const group of await storage.offsetGroups()) {
    let lag = 0;
    const committed = await storage.fetchOffsets(group);
    sinceYield += committed.length + 1;
    if (sinceYield >= offsetsPerTurn) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    for (const c of committed) {
      const hw = c.offset < 0 ? undefined : await highWatermark(c.topic, c.partition);
      if (hw !== undefined) lag += Math.max(0, hw - c.offset);
    }
    all.push({ group, lag });
  }
  const max = all.reduce((m, g) => Math.max(m, g.lag), 0);
  all.sort((a, b) => b.lag - a.lag || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return { groups: all.slice(0, limit), max, groupCount: all.length };
}
