// The order and bookkeeping of a retention sweep shared by the SQLite and memory engines
// (PostgreSQL orders in SQL): partitions in (topic name, partition) order after a cursor, at most a
// window's worth, and where the next call resumes.
import type { RetentionCursor, RetentionResult, RetentionWindow } from './storage';

export interface SweptTopic {
  name: string;
  partitions: readonly unknown[];
}

/** The window's partitions of `topics`, in sweep order; `more` says whether any remain after them. */
export function sweepWindow<S extends SweptTopic>(
  topics: Iterable<S>,
  window: RetentionWindow | undefined,
): { visit: { topic: S; partition: number }[]; more: boolean } {
  const after = window?.after;
  const max = window?.maxPartitions ?? Infinity;
  const sorted = [...topics].filter((t) => !after || t.name >= after.topic);
  sorted.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const visit: { topic: S; partition: number }[] = [];
  for (const t of sorted) {
    const first = after && t.name === after.topic ? after.partition + 1 : 0;
    for (let p = first; p < t.partitions.length; p++) {
      if (visit.length >= max) return { visit, more: true };
      visit.push({ topic: t, partition: p });
    }
  }
  return { visit, more: false };
}

/**
 * Tracks a call's progress: `finished` for each partition done within the batch budget; `stop` when
 * the budget ran out (the partition it ran out in may hold more). `result` sets resumeAfter when
 * the call ends before the sweep does.
 */
export class SweepProgress {
  private last: RetentionCursor | undefined;
  private stopped = false;

  constructor(private readonly window: RetentionWindow | undefined) {}

  finished(topic: string, partition: number): void {
    this.last = { topic, partition };
  }

  stop(): void {
    this.stopped = true;
  }

  result(deleted: RetentionResult, more: boolean): RetentionResult {
    if (!this.window || (!this.stopped && !more)) return deleted;
    return { ...deleted, resumeAfter: this.last ?? this.window.after };
  }
}
