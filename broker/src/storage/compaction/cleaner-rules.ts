// What the compactor may clean and when (Kafka's LogCleanerManager.cleanableOffsets and
// grabFilthiestCompactedLog), decided once for every engine. No segments here: the "active
// segment" is the batch holding HW-1, as retention keeps it, and min.compaction.lag.ms is checked
// per batch (its maxTimestamp) rather than per segment.
import { createHash } from 'node:crypto';
import { topicConfig } from '../topic-config';
import { runSync } from './maybe';
import type { MaybePromise, Steps } from './maybe';

export interface CompactionSettings {
  compact: boolean;
  delete: boolean;
  deleteRetentionMs: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
  minCleanableDirtyRatio: number;
}

/** A topic's effective compaction settings: its overrides, else the broker defaults, else Kafka's. */
export function compactionSettings(
  configs: Record<string, string>,
  brokerDefaults?: Readonly<Record<string, string>>,
): CompactionSettings {
  const policy = topicConfig(configs, 'cleanup.policy', brokerDefaults)
    .split(',')
    .map((p) => p.trim());
  const num = (name: string) => Number(topicConfig(configs, name, brokerDefaults));
  return {
    compact: policy.includes('compact'),
    delete: policy.includes('delete'),
    deleteRetentionMs: num('delete.retention.ms'),
    minCompactionLagMs: num('min.compaction.lag.ms'),
    maxCompactionLagMs: num('max.compaction.lag.ms'),
    minCleanableDirtyRatio: num('min.cleanable.dirty.ratio'),
  };
}

/** What the engine answers about one partition so the range can be computed. */
export interface PartitionLogView {
  logStartOffset: number;
  highWatermark: number;
  lastStableOffset: number;
  /** The checkpointed end of the last pass's mapped range (0 when never cleaned). */
  cleanOffset: number;
  /** The earliest delete horizon the last pass left on a tombstone or marker; -1 when none. */
  nextHorizonMs: number;
  /**
   * Bytes below the clean offset as the last pass left them (undefined: never cleaned). Kept rather
   * than summed per look, which would read every row of a large log; retention and DeleteRecords
   * since then make it an overestimate, so the ratio errs on the low side (a pass comes later).
   */
  cleanBytes: number | undefined;
}

/** The view's checkpoint part from the last pass (none yet: clean offset 0, no horizon). */
export function cleanerView(
  last: { cleanOffset: number; nextHorizonMs: number; bytesAfter: number } | undefined,
): Pick<PartitionLogView, 'cleanOffset' | 'nextHorizonMs' | 'cleanBytes'> {
  return {
    cleanOffset: last?.cleanOffset ?? 0,
    nextHorizonMs: last?.nextHorizonMs ?? -1,
    cleanBytes: last?.bytesAfter,
  };
}

export interface CleanableRange {
  /** Where the dirty part starts: max(clean offset, log start). */
  firstDirty: number;
  /** Nothing at or past this is touched: min(LSO, the batch holding HW-1, the first batch newer than the lag). */
  firstUncleanable: number;
  cleanBytes: number;
  dirtyBytes: number;
  /** dirty / (clean + dirty), 0 when empty (Kafka's cleanableRatio). */
  dirtyRatio: number;
  /**
   * The oldest dirty batch is older than max.compaction.lag.ms (KIP-354), or a tombstone's or
   * marker's delete horizon passed (KIP-534: Kafka's cleaner picks such logs too).
   */
  forced: boolean;
}

/** The engine's cheap queries (sizes and timestamps, never blobs) the range is computed from. */
export interface RangeQueries {
  /** Sum of sizes of the batches whose base offset is in [from, to). */
  bytesBetween(from: number, to: number): MaybePromise<number>;
  /** Base offset of the batch holding `offset`, if any. */
  holding(offset: number): MaybePromise<number | undefined>;
  /** Base offset of the first batch with base >= from whose maxTimestamp > timestamp. */
  firstNewerThan(from: number, timestamp: number): MaybePromise<number | undefined>;
  /** The first batch with base >= from. */
  firstFrom(from: number): MaybePromise<{ baseOffset: number; maxTimestamp: number } | undefined>;
}

/** The range to clean (Kafka's cleanableOffsets), as engine queries: run by runSync or runAsync (maybe.ts). */
export function* rangeSteps(
  view: PartitionLogView,
  settings: CompactionSettings,
  q: RangeQueries,
  nowMs: number,
): Steps<CleanableRange> {
  let firstDirty = Math.max(view.cleanOffset, view.logStartOffset);
  if (firstDirty > view.highWatermark) firstDirty = view.logStartOffset; // a stale checkpoint
  let firstUncleanable = Math.min(view.lastStableOffset, view.highWatermark);
  if (view.highWatermark > 0) {
    const active = (yield q.holding(view.highWatermark - 1)) as number | undefined;
    if (active !== undefined) firstUncleanable = Math.min(firstUncleanable, active);
  }
  if (settings.minCompactionLagMs > 0) {
    const young = (yield q.firstNewerThan(firstDirty, nowMs - settings.minCompactionLagMs)) as number | undefined;
    if (young !== undefined) firstUncleanable = Math.min(firstUncleanable, young);
  }
  firstUncleanable = Math.max(firstUncleanable, firstDirty);
  const cleanBytes =
    view.cleanBytes !== undefined && firstDirty === view.cleanOffset
      ? view.cleanBytes
      : ((yield q.bytesBetween(0, firstDirty)) as number);
  const dirtyBytes =
    firstUncleanable > firstDirty ? ((yield q.bytesBetween(firstDirty, firstUncleanable)) as number) : 0;
  const total = cleanBytes + dirtyBytes;
  let forced = false;
  if (dirtyBytes > 0 && settings.maxCompactionLagMs < Number.MAX_SAFE_INTEGER) {
    const first = (yield q.firstFrom(firstDirty)) as { maxTimestamp: number } | undefined;
    forced = first !== undefined && first.maxTimestamp <= nowMs - settings.maxCompactionLagMs;
  }
  if (view.nextHorizonMs >= 0 && nowMs >= view.nextHorizonMs && firstDirty > 0) forced = true;
  return {
    firstDirty,
    firstUncleanable,
    cleanBytes,
    dirtyBytes,
    dirtyRatio: total > 0 ? dirtyBytes / total : 0,
    forced,
  };
}

/** rangeSteps over an engine that answers synchronously. */
export function cleanableRange(
  view: PartitionLogView,
  settings: CompactionSettings,
  q: RangeQueries,
  nowMs: number,
): CleanableRange {
  return runSync(rangeSteps(view, settings, q, nowMs));
}

/** Whether a pass should run now (Kafka: ratio above min.cleanable.dirty.ratio, or past the max lag). */
export function needsCleaning(range: CleanableRange, settings: CompactionSettings): boolean {
  return range.forced || (range.dirtyBytes > 0 && range.dirtyRatio > settings.minCleanableDirtyRatio);
}

/**
 * The offset map's key: short keys as they are, longer ones as a 16-byte SHA-1 prefix (Kafka's
 * SkimpyOffsetMap keeps digests too); the prefix tells the two kinds apart.
 */
export function keyId(key: Buffer): string {
  if (key.length <= 16) return `k${key.toString('latin1')}`;
  return `h${createHash('sha1').update(key).digest().toString('latin1', 0, 16)}`;
}

/** Rough bytes one offset-map entry costs in V8 (string, number, hash slot). */
export const OFFSET_MAP_ENTRY_BYTES = 80;

/** Default MINNOW_LOG_CLEANER_DEDUPE_BYTES (Kafka's log.cleaner.dedupe.buffer.size is 128 MiB). */
export const DEFAULT_DEDUPE_BYTES = 16 * 1024 * 1024;
