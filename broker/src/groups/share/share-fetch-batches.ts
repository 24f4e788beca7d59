// The record batches a ShareFetch reads, seen as offset ranges: which batch holds an offset, which
// batches an acquisition covers, and which belong to aborted transactions (read_committed).
import { ATTRIBUTES, Attribute, PRODUCER_ID } from '../../protocol/record-batch';
import type { AbortedTransaction } from '../../storage/record-store';
import type { AcquiredRange } from './share-partition';

export const baseOffsetOf = (batch: Buffer) => Number(batch.readBigInt64BE(0));
export const lastOffsetOf = (batch: Buffer) => baseOffsetOf(batch) + batch.readInt32BE(23);

/** The last offset of the batch among `batches` that holds `offset` (offset itself if none does). */
export function batchEndOf(batches: readonly Buffer[], offset: number): number {
  for (const b of batches) if (baseOffsetOf(b) <= offset && offset <= lastOffsetOf(b)) return lastOffsetOf(b);
  return offset;
}

/** Appends `more` to `ranges`, joining a range that continues the last one with the same delivery count. */
export function appendRanges(ranges: AcquiredRange[], more: readonly AcquiredRange[]): void {
  for (const r of more) {
    const last = ranges[ranges.length - 1];
    if (last && last.lastOffset === r.firstOffset - 1 && last.deliveryCount === r.deliveryCount)
      last.lastOffset = r.lastOffset;
    else ranges.push({ ...r });
  }
}

/**
 * The offsets of the data batches of aborted transactions among `batches` (Kafka's
 * SharePartition.fetchAbortedTransactionRecordBatches): transactional, not control, from a producer
 * with an aborted transaction that began at or before the batch and whose ABORT marker follows it.
 */
export function abortedRanges(
  batches: readonly Buffer[],
  aborted: readonly AbortedTransaction[],
): Array<{ first: number; last: number }> {
  if (aborted.length === 0) return [];
  const out: Array<{ first: number; last: number }> = [];
  for (const b of batches) {
    const attributes = b.readInt16BE(ATTRIBUTES);
    if ((attributes & Attribute.Transactional) === 0 || (attributes & Attribute.Control) !== 0) continue;
    const producerId = Number(b.readBigInt64BE(PRODUCER_ID));
    const first = baseOffsetOf(b);
    const last = lastOffsetOf(b);
    if (aborted.some((a) => a.producerId === producerId && a.firstOffset <= first && last < a.lastOffset)) {
      out.push({ first, last });
    }
  }
  return out;
}

export function overlaps(batch: Buffer, ranges: readonly AcquiredRange[]): boolean {
  const first = baseOffsetOf(batch);
  const last = lastOffsetOf(batch);
  return ranges.some((r) => r.firstOffset <= last && r.lastOffset >= first);
}
