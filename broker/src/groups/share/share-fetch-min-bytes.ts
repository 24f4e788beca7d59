// A ShareFetch's MinBytes, as Kafka 4.1.1's DelayedShareFetch.isMinBytesSatisfied counts it: the
// bytes the log holds past each share-partition's next fetch offset (up to the high watermark, or
// the last stable offset under read_committed), each partition counted up to its share of MaxBytes,
// partitions at their in-flight limit left out.
// Like Kafka, it assumes what is past the fetch offset can be acquired; nothing is acquired here.
import { ErrorCode } from '../../protocol/error-codes';
import type { Storage } from '../../storage/storage';
import type { TopicInfo } from '../../storage/topic-store';
import type { SharePartition } from './share-partition';
import type { SharePartitions } from './share-partitions';
import { lastOffsetOf } from './share-fetch-batches';

export interface ReadableBytesDeps {
  storage: Storage;
  partitions: SharePartitions;
  now: () => number;
  readCommitted: boolean;
  topicOf: (topicId: string) => Promise<TopicInfo | undefined>;
}

/** Each partition is counted with one read of at most this (its batches are held in memory). */
const COUNT_CAP_BYTES = 1024 * 1024;

/**
 * The bytes readable for the fetch of `groupId`'s session partitions (`topicId\0partition` keys),
 * counted until `enough`. A partition that cannot be read (an error to answer) counts as enough:
 * Kafka completes such a fetch at once.
 */
export async function readableBytes(
  deps: ReadableBytesDeps,
  req: { groupId: string; maxBytes: number },
  keys: readonly string[],
  canRead: (topic: TopicInfo | undefined, partition: number) => boolean,
  enough: number,
): Promise<number> {
  // Kafka counts the partitions it can acquire only (DelayedShareFetch.acquirablePartitions): one
  // at its in-flight limit (canAcquireRecords) holds nothing this fetch could take, and MaxBytes is
  // split between the others.
  const acquirable: Array<{ topic: TopicInfo; partition: number; state: SharePartition }> = [];
  for (const k of keys) {
    const [topicId, part] = k.split('\u0000');
    const partition = Number(part);
    const topic = await deps.topicOf(topicId!);
    if (!topic || !canRead(topic, partition)) return Number.MAX_SAFE_INTEGER;
    const state = await deps.partitions.get(req.groupId, topic, partition);
    if (state.canAcquireRecords(deps.now())) acquirable.push({ topic, partition, state });
  }
  const share = Math.floor(req.maxBytes / Math.max(1, acquirable.length));
  let bytes = 0;
  for (const { topic, partition, state } of acquirable) {
    const from = state.nextFetchOffset(deps.now());
    const cap = Math.min(share, enough - bytes, COUNT_CAP_BYTES);
    // Read only what is still missing: a read stops before the batch that would pass its cap, so
    // records left past the batches read mean the cap is readable (the first batch comes whole).
    const read = await deps.storage.read(topic.name, partition, from, cap, true, deps.readCommitted);
    if (read.errorCode !== ErrorCode.NONE) return Number.MAX_SAFE_INTEGER;
    const last = read.batches[read.batches.length - 1];
    const end = deps.readCommitted ? read.lastStableOffset : read.highWatermark;
    const more = last !== undefined && lastOffsetOf(last) + 1 < end;
    bytes += more
      ? cap
      : Math.min(
          cap,
          read.batches.reduce((n, b) => n + b.length, 0),
        );
    if (bytes >= enough) break;
  }
  return bytes;
}
