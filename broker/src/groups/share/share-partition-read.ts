// One share-partition's part of a ShareFetch: read the log from the share-partition's next fetch
// offset, up to the partition's share of MaxBytes, and acquire records of what was read for the
// member (Kafka: DelayedShareFetch's log read, then ShareFetchUtils.processFetchResponse /
// SharePartition.acquire). Under the broker's bound on fetched bytes held in memory when the
// request came on a connection (server/response-memory.ts), as a Fetch's reads are.
import { ErrorCode } from '../../protocol/error-codes';
import type { Storage } from '../../storage/storage';
import type { TopicInfo } from '../../storage/topic-store';
import type { ShareGroupSettings } from './share-group-configs';
import type { AcquiredRange, SharePartition } from './share-partition';
import { abortedRanges, appendRanges, batchEndOf, lastOffsetOf, overlaps } from './share-fetch-batches';

/**
 * The request's share of the broker's fetched-bytes bound (server/response-memory.ts's
 * ResponseHold, seen from here: groups/ sits below server/). Released by the connection once the
 * client has the response.
 */
export interface FetchedBytesHold {
  /** Up to `wanted` bytes, as many as are free; 0 when none is. */
  take(wanted: number): number;
  /** A read given `taken` bytes ended up keeping `kept`: the rest goes back, or more is counted. */
  keep(taken: number, kept: number): void;
}

/** A partition's share of MaxBytes is read this much at a time (each read is held in memory whole). */
const READ_CHUNK_BYTES = 1024 * 1024;

export interface PartitionReadLimits {
  maxRecords: number;
  maxBytes: number;
  /** The response has no records yet: the first batch may exceed maxBytes (KIP-74). */
  minOneBatch: boolean;
}

export interface PartitionRead {
  errorCode: number;
  /** The batches read that hold acquired records, whole. */
  batches: Buffer[];
  ranges: AcquiredRange[];
  /** The share-partition's state changed (to be persisted). */
  changed: boolean;
}

export const countOf = (rs: readonly AcquiredRange[]) => rs.reduce((s, r) => s + r.lastOffset - r.firstOffset + 1, 0);

/**
 * Reads one partition from its next fetch offset, up to `limits.maxBytes` (in reads of at most
 * READ_CHUNK_BYTES: a read is held in memory whole), and acquires up to `limits.maxRecords` of its
 * records for `memberId`. With `hold`, each read takes its bytes from the broker's bound first and
 * keeps only the bytes of the batches answered: when none are free it reads nothing, as if the log
 * had no more (the client sees an empty answer, never an error, as a Fetch's consumer does).
 */
export async function acquireFromPartition(
  deps: { storage: Storage; now: () => number },
  memberId: string,
  settings: ShareGroupSettings,
  topic: TopicInfo,
  partition: number,
  state: SharePartition,
  limits: PartitionReadLimits,
  hold: FetchedBytesHold | undefined,
): Promise<PartitionRead> {
  const out: PartitionRead = { errorCode: ErrorCode.NONE, batches: [], ranges: [], changed: false };
  let bytesLeft = limits.maxBytes;
  let from = state.nextFetchOffset(deps.now());
  let first = true;
  while (countOf(out.ranges) < limits.maxRecords && bytesLeft > 0) {
    const left = limits.maxRecords - countOf(out.ranges);
    const wanted = Math.min(bytesLeft, READ_CHUNK_BYTES);
    const readCap = hold ? hold.take(wanted) : wanted;
    // KIP-74's whole first batch only when the bound gave all that was wanted (as a Fetch's read).
    const minOneBatch = first && limits.minOneBatch && readCap === wanted;
    first = false;
    const read = await deps.storage.read(topic.name, partition, from, readCap, minOneBatch, settings.readCommitted);
    const readBytes = read.batches.reduce((n, b) => n + b.length, 0);
    if (read.errorCode !== ErrorCode.NONE) {
      hold?.keep(readCap, 0);
      if (out.ranges.length === 0) out.errorCode = read.errorCode;
      break;
    }
    if (from < read.logStartOffset) state.moveStartTo(read.logStartOffset);
    if (read.batches.length === 0) {
      hold?.keep(readCap, 0);
      break;
    }
    // share.isolation.level=read_committed: nothing from the last stable offset on (an open
    // transaction), and the records of aborted transactions are archived, never delivered.
    const end = settings.readCommitted ? read.lastStableOffset : read.highWatermark;
    const readLast = lastOffsetOf(read.batches[read.batches.length - 1]!);
    const last = Math.min(readLast, end - 1);
    const skip = settings.readCommitted ? abortedRanges(read.batches, read.abortedTransactions) : [];
    const lock = { lockDurationMs: settings.lockDurationMs, skip };
    const ranges = state.acquire(memberId, from, last, left, deps.now(), lock);
    // MaxRecords is a soft limit aligned to record batches, as in Kafka (SharePartition's
    // acquireNewBatchRecords): the batch holding the last record acquired is acquired whole.
    const lastTaken = ranges[ranges.length - 1]?.lastOffset;
    if (lastTaken !== undefined && countOf(ranges) >= left) {
      const batchEnd = Math.min(batchEndOf(read.batches, lastTaken), last);
      if (batchEnd > lastTaken) {
        const more = state.acquire(memberId, lastTaken + 1, batchEnd, Number.MAX_SAFE_INTEGER, deps.now(), lock);
        appendRanges(ranges, more);
      }
    }
    if (ranges.length > 0 || skip.length > 0) out.changed = true;
    const answered = read.batches.filter((b) => overlaps(b, ranges));
    hold?.keep(
      readCap,
      answered.reduce((n, b) => n + b.length, 0),
    );
    out.batches.push(...answered);
    appendRanges(out.ranges, ranges);
    bytesLeft -= readBytes;
    // A read that acquired nothing ends the partition (the records held by others): reading on
    // would load up to MaxBytes for nothing.
    if (ranges.length === 0 || readLast >= end - 1) break;
    from = readLast + 1;
  }
  return out;
}
