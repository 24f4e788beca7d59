// Where a timestamp lands in a stored batch: ListOffsets by time and by max timestamp (KIP-734),
// and a share-partition starting by_duration (share-auto-offset-reset.ts). Batches are stored
// whole, so a lookup decodes just the one batch that holds the answer.
import { decodeRecords, readBatchHeader, timestampType, TimestampType } from '../protocol/record-batch';
import type { StoredBatch } from './storage';

export interface Found {
  offset: number;
  timestamp: number;
}

/** Per record (offset, timestamp) of a stored batch; with LogAppendTime every record has the batch time. */
function recordTimes(batch: StoredBatch): Found[] {
  const h = readBatchHeader(batch.data);
  const logAppend = timestampType(h.attributes) === TimestampType.LogAppendTime;
  return decodeRecords(batch.data).map((r) => ({
    offset: batch.baseOffset + r.offsetDelta,
    timestamp: logAppend ? Number(h.maxTimestamp) : Number(h.baseTimestamp) + r.timestampDelta,
  }));
}

export function offsetForTimestamp(batch: StoredBatch | undefined, timestampMs: number): Found | undefined {
  if (!batch) return undefined;
  return recordTimes(batch).find((r) => r.timestamp >= timestampMs);
}

export function offsetOfMaxTimestamp(batch: StoredBatch | undefined): Found | undefined {
  if (!batch) return undefined;
  let best: Found | undefined;
  for (const r of recordTimes(batch)) if (!best || r.timestamp > best.timestamp) best = r;
  return best;
}
