// One retention run: a sweep over every partition in steps of RETENTION_PARTITIONS_PER_STEP
// partitions (and RETENTION_BATCHES_PER_STEP deleted batches), yielding to the event loop between
// steps. A single call over every partition was one SQLite transaction as long as the partition
// count made it, every client waiting meanwhile (issue 29).
import { RETENTION_SWEEP_START } from '../storage/storage';
import type { RetentionCursor, RetentionDefaults, RetentionResult, Storage } from '../storage/storage';

/** Batches deleted per step, so one step never holds the writer for long. */
export const RETENTION_BATCHES_PER_STEP = 500;
/**
 * Partitions visited per step. Measured on SQLite, 10,000 partitions: one call over all of them took
 * 541-915 ms; in steps of 100, 5-9 ms a step on average (load average 20 on 2 vCPUs).
 */
export const RETENTION_PARTITIONS_PER_STEP = 100;

export interface RetentionSweepOptions {
  nowMs: number;
  defaults: RetentionDefaults;
  /** Runs one storage call (the broker retries it once a full disk has room). */
  step: (call: () => Promise<RetentionResult>) => Promise<RetentionResult>;
  /** The broker is stopping: end the sweep after the current step. */
  stopped: () => boolean;
  partitionsPerStep?: number;
}

/** Sweeps every partition once; returns what was deleted in all and how many steps it took. */
export async function sweepRetention(
  storage: Storage,
  opts: RetentionSweepOptions,
): Promise<RetentionResult & { steps: number }> {
  const total = { deletedBatches: 0, deletedBytes: 0, steps: 0 };
  let after: RetentionCursor = RETENTION_SWEEP_START;
  const maxPartitions = opts.partitionsPerStep ?? RETENTION_PARTITIONS_PER_STEP;
  for (;;) {
    const window = { after, maxPartitions };
    const r = await opts.step(() =>
      storage.enforceRetention(opts.nowMs, opts.defaults, RETENTION_BATCHES_PER_STEP, window),
    );
    total.steps++;
    total.deletedBatches += r.deletedBatches;
    total.deletedBytes += r.deletedBytes;
    if (!r.resumeAfter || opts.stopped()) return total;
    after = r.resumeAfter;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
