// The Fetch side of `minnow perf consume`: the request for a leader's partitions, and the new
// positions read from a response's batch headers (before any record is decoded).
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { FetchRequest, FetchResponse } from '../protocol/messages';
import { BASE_OFFSET, LAST_OFFSET_DELTA, splitBatches } from '../protocol/record-batch';
import { MiB } from './report';
import { recordBytes } from '../protocol/records';

const FETCH_MAX_BYTES = 50 * MiB; // fetch.max.bytes default

export interface PartitionState {
  partition: number;
  leader: number;
  position: bigint;
  /** Stop here (exclusive) when no --num-records is given. */
  end: bigint | undefined;
}

/** A partition's record batches of one response, read from `from` on. */
export interface FetchedBatches {
  state: PartitionState;
  from: bigint;
  batches: Buffer[];
}

export const wantsMore = (s: PartitionState) => s.end === undefined || s.position < s.end;

export function fetchRequest(
  topic: string,
  parts: PartitionState[],
  opts: { fetchMaxWaitMs: number; fetchSizeBytes: number },
): FetchRequest {
  return {
    replicaId: -1,
    maxWaitMs: opts.fetchMaxWaitMs,
    minBytes: 1,
    maxBytes: Math.max(FETCH_MAX_BYTES, opts.fetchSizeBytes),
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        partitions: parts.filter(wantsMore).map((s) => ({
          partition: s.partition,
          currentLeaderEpoch: -1,
          fetchOffset: s.position,
          logStartOffset: -1n,
          partitionMaxBytes: opts.fetchSizeBytes,
        })),
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

/**
 * Moves each partition's position past the last batch of the response, from the batch headers
 * alone, and returns the batches to count. A partition error throws (the run cannot go on).
 */
export function advancePositions(
  res: FetchResponse,
  byPartition: Map<number, PartitionState>,
  topic: string,
): FetchedBatches[] {
  const work: FetchedBatches[] = [];
  for (const t of res.responses) {
    for (const pd of t.partitions) {
      const s = byPartition.get(pd.partitionIndex);
      if (!s) continue;
      if (pd.errorCode !== ErrorCode.NONE)
        throw new Error(`fetch ${topic}/${pd.partitionIndex} at ${s.position}: ${errorName(pd.errorCode)}`);
      if (!pd.records || pd.records.length === 0) continue;
      const { batches } = splitBatches(recordBytes(pd.records));
      if (batches.length === 0) continue;
      const lastBatch = batches[batches.length - 1]!;
      const next = lastBatch.readBigInt64BE(BASE_OFFSET) + BigInt(lastBatch.readInt32BE(LAST_OFFSET_DELTA)) + 1n;
      work.push({ state: s, from: s.position, batches });
      if (next > s.position) s.position = next;
    }
  }
  return work;
}
