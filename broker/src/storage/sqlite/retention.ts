// Retention (retention.ms, retention.bytes) and giving freed pages back to the file system. Whole
// batches go from the low end of each partition, at most `maxBatches` per call, so the server can
// call this often with a small budget instead of stalling the event loop on one large delete.
import type Database from 'better-sqlite3';
import { type RetentionLimits, retentionDeletes, retentionLimits } from '../log-rules';
import { SweepProgress, sweepWindow } from '../retention-sweep';
import type { RetentionDefaults, RetentionResult, RetentionWindow } from '../storage';
import type { Records } from './records';
import type { PartitionEntry, Topics } from './topics';
import type { Transactor } from './transaction';

/** Pages reclaimed per call beyond what the call itself freed, to work off older free pages (deleted topics). */
const EXTRA_VACUUM_PAGES = 1024;

interface OldBatch {
  lastOffset: number;
  maxTimestamp: number;
  size: number;
}

export class Retention {
  private readonly oldest;

  constructor(
    private readonly db: Database.Database,
    private readonly tx: Transactor,
    private readonly topics: Topics,
    private readonly records: Records,
  ) {
    this.oldest = db.prepare(
      'SELECT last_offset AS lastOffset, max_timestamp AS maxTimestamp, size FROM record_batch WHERE partition_id = ? ORDER BY base_offset LIMIT ?',
    );
  }

  enforce(nowMs: number, defaults: RetentionDefaults, maxBatches: number, window?: RetentionWindow): RetentionResult {
    const result: RetentionResult = { deletedBatches: 0, deletedBytes: 0 };
    const { visit, more } = sweepWindow(this.topics.forSweep(), window);
    const progress = new SweepProgress(window);
    this.tx.run(() => {
      for (const { topic, partition } of visit) {
        const budget = maxBatches - result.deletedBatches;
        if (budget <= 0) {
          progress.stop();
          break;
        }
        const limits = retentionLimits(topic.configs, defaults, nowMs);
        if (limits.minTimestamp !== -Infinity || limits.maxBytes !== Infinity) {
          const deleted = this.enforceOne(topic.partitions[partition]!, limits, budget);
          result.deletedBatches += deleted.batches;
          result.deletedBytes += deleted.bytes;
          if (deleted.batches >= budget) {
            progress.stop(); // the budget ran out here: this partition may hold more
            break;
          }
        }
        progress.finished(topic.name, partition);
      }
    });
    return progress.result(result, more); // the caller reclaims the freed pages
  }

  private enforceOne(
    entry: PartitionEntry,
    limits: RetentionLimits,
    budget: number,
  ): { batches: number; bytes: number } {
    let bytes = limits.maxBytes === Infinity ? 0 : this.records.partitionBytes(entry);
    let endOffset = -1;
    for (const b of this.oldest.iterate(entry.id, budget) as IterableIterator<OldBatch>) {
      if (!retentionDeletes(b, bytes, entry.highWatermark, limits)) break;
      bytes -= b.size;
      endOffset = b.lastOffset + 1;
    }
    if (endOffset < 0) return { batches: 0, bytes: 0 };
    return this.records.deleteBelow(entry, endOffset, endOffset);
  }

  /**
   * auto_vacuum=INCREMENTAL keeps freed pages in the file until incremental_vacuum returns them.
   * Bounded by what was just freed (plus a little backlog) so one call never rewrites the file.
   */
  reclaim(freedBytes: number): void {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    const pages = Math.min(free, Math.ceil(freedBytes / pageSize) + EXTRA_VACUUM_PAGES);
    if (pages > 0) this.db.pragma(`incremental_vacuum(${pages})`);
  }
}
