// What an engine gives the shared compactor (cleaner.ts): its compacted partitions' logs as a
// CleanerLog, answered synchronously (memory, SQLite) or with Promises (PostgreSQL).
import type { BatchRow } from '../append-plan';
import type { AbortedTransaction } from '../storage';
import type { PartitionLogView, RangeQueries } from './cleaner-rules';
import type { CleanerPartitionRef } from './cleaner-types';
import type { MaybePromise } from './maybe';

/** A stored batch as the cleaner sees it: the row plus its tombstone/marker delete horizon (-1: none yet). */
export interface CleanerBatch extends BatchRow {
  deleteHorizonMs: number;
}

export type BatchChange =
  | { kind: 'delete'; baseOffset: number }
  | { kind: 'horizon'; baseOffset: number; deleteHorizonMs: number }
  | {
      kind: 'rewrite';
      baseOffset: number;
      data: Buffer;
      recordCount: number;
      maxTimestamp: number;
      deleteHorizonMs: number;
    };

/**
 * Thrown by CleanerLog.apply when another cleaner (another broker on the same database) is writing
 * the partition now: the pass is dropped without error; the partition is chosen again later.
 */
export class PartitionBusy extends Error {
  override readonly name = 'PartitionBusy';
}

/** The last pass's outcome per partition (log_cleaner in SQLite). */
export interface CleanerCheckpoint {
  cleanOffset: number;
  lastCleanedMs: number;
  bytesBefore: number;
  bytesAfter: number;
  /** The earliest delete horizon left on a kept tombstone or marker (-1: none): the next pass is due then. */
  nextHorizonMs: number;
}

export type PartitionEntry = CleanerPartitionRef & { topicId: string; configs: Record<string, string> };
export type View = PartitionLogView & { topicId: string; configs: Record<string, string> };

/**
 * What an engine gives the cleaner: its compacted partitions' logs, read and changed in bounded
 * calls, each answered as a value (in-process engines) or a Promise (a network database).
 */
export interface CleanerLog {
  /** Every partition with its topic's overrides (the cleaner keeps those whose policy has compact). */
  partitions(): MaybePromise<Iterable<PartitionEntry>>;
  view(topic: string, partition: number): MaybePromise<View | undefined>;
  rangeQueries(topic: string, partition: number): MaybePromise<RangeQueries>;
  /** Batches whose base offset is in [from, to), in order, until their sizes reach maxBytes or maxCount are read (at least one). */
  batches(
    topic: string,
    partition: number,
    from: number,
    to: number,
    maxBytes: number,
    maxCount: number,
  ): MaybePromise<CleanerBatch[]>;
  aborted(topic: string, partition: number): MaybePromise<AbortedTransaction[]>;
  /** Base offsets of each producer's newest batch here (kept even when emptied: RETAIN_EMPTY). */
  producerNewestBatches(topic: string, partition: number): MaybePromise<Set<number>>;
  /** Applies changes in one transaction; a batch no longer stored (retention, DeleteRecords) is skipped. Returns bytes freed. */
  apply(topic: string, partition: number, changes: readonly BatchChange[]): MaybePromise<number>;
  checkpoint(topic: string, partition: number, checkpoint: CleanerCheckpoint): MaybePromise<void>;
  lastCheckpoint(topic: string, partition: number): MaybePromise<CleanerCheckpoint | undefined>;
  /** Gives freed pages back to the file system (SQLite incremental_vacuum); a no-op in memory. */
  reclaim(freedBytes: number): MaybePromise<void>;
}
