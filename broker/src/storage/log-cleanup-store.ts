// The log-cleaning part of the Storage interface (storage.ts composes it): retention deletes old
// batches, compaction keeps each key's newest record.
import type { CleanerOptions, CleanerState, CompactionStepResult } from './compaction/cleaner-types';

export interface RetentionDefaults {
  retentionMs: number;
  retentionBytes: number;
  /** log.cleanup.policy: topics without an override whose policy lacks delete keep their data. */
  cleanupPolicy?: string;
}

export interface RetentionResult {
  deletedBatches: number;
  deletedBytes: number;
  /**
   * With a window: the last partition the call finished when partitions remain after it (the next
   * call's `window.after`); absent once the sweep has passed the last partition.
   */
  resumeAfter?: RetentionCursor;
}

/** A place in retention's sweep, which visits partitions in (topic name, partition) order. */
export interface RetentionCursor {
  topic: string;
  partition: number;
}

/** Before the first partition (topic names are never empty). */
export const RETENTION_SWEEP_START: RetentionCursor = { topic: '', partition: -1 };

/**
 * The partitions one retention call visits: those after `after`, at most `maxPartitions`, so a
 * sweep over thousands of partitions goes in short steps instead of one long transaction (issue 29).
 */
export interface RetentionWindow {
  after: RetentionCursor;
  maxPartitions: number;
}

export interface LogCleanupStore {
  /**
   * Deletes batches past retention.ms / retention.bytes, at most `maxBatches` per call, in the
   * partitions of `window` (default: all of them).
   */
  enforceRetention(
    nowMs: number,
    defaults: RetentionDefaults,
    maxBatches: number,
    window?: RetentionWindow,
  ): RetentionResult;

  // Compaction (issue 17, docs/compaction.md; the shared logic is compaction/cleaner.ts). Topics
  // whose cleanup.policy holds compact are cleaned by the engine, one bounded step per call: the
  // server calls compactStep every LOG_CLEANER_BACKOFF_MS, and again (after yielding to the event
  // loop) while it answers working. Offsets never change: a cleaned batch keeps its base and last
  // offset and producer fields; batches emptied go unless they are their producer's newest.
  // Tombstones and markers are kept delete.retention.ms from the first pass that sees them.
  /**
   * One step: choose the dirtiest compacted partition (dirty ratio above min.cleanable.dirty.ratio,
   * or past max.compaction.lag.ms), or map a slice of its dirty range, or filter a slice of its log
   * (one short write transaction). `working: false`: nothing to clean now. `passDone` reports the
   * pass that ended in this step (after its clean offset was checkpointed and pages reclaimed).
   * A Promise in every engine (the shared Cleaner awaits its log, which may be a network database).
   */
  compactStep(nowMs: number, opts?: CleanerOptions): Promise<CompactionStepResult>;
  /**
   * For reporting (`minnow topic describe`): the partition's clean offset, first uncleanable offset,
   * dirty ratio now, and the last pass's time and bytes before/after. Undefined if unknown.
   */
  cleanerState(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): CleanerState | undefined;
}
