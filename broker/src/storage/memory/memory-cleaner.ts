// The memory:// engine's side of the compactor (compaction/cleaner.ts): its logs as a CleanerLog.
import type { BatchChange, CleanerBatch, CleanerCheckpoint, CleanerLog } from '../compaction/cleaner';
import { cleanerView } from '../compaction/cleaner-rules';
import type { RangeQueries } from '../compaction/cleaner-rules';
import type { AbortedTransaction } from '../storage';
import type { MemoryLog } from './memory-log';

export interface MemoryTopicRef {
  info: { name: string; topicId: string; configs: Record<string, string> };
  logs: MemoryLog[];
}

export class MemoryCleanerLog implements CleanerLog {
  constructor(
    private readonly topics: () => Iterable<MemoryTopicRef>,
    private readonly topic: (name: string) => MemoryTopicRef | undefined,
  ) {}

  *partitions() {
    for (const t of this.topics()) {
      for (let p = 0; p < t.logs.length; p++)
        yield { topic: t.info.name, partition: p, topicId: t.info.topicId, configs: t.info.configs };
    }
  }

  private log(topic: string, partition: number): MemoryLog | undefined {
    return this.topic(topic)?.logs[partition];
  }

  view(topic: string, partition: number) {
    const t = this.topic(topic);
    const log = t?.logs[partition];
    if (!t || !log) return undefined;
    return {
      topicId: t.info.topicId,
      configs: t.info.configs,
      logStartOffset: log.logStartOffset,
      highWatermark: log.highWatermark,
      lastStableOffset: log.lastStableOffset(),
      ...cleanerView(log.cleaner),
    };
  }

  rangeQueries(topic: string, partition: number): RangeQueries {
    const batches = this.log(topic, partition)?.batches ?? [];
    return {
      bytesBetween: (from, to) =>
        batches.reduce((n, b) => (b.baseOffset >= from && b.baseOffset < to ? n + b.size : n), 0),
      holding: (offset) => batches.find((b) => b.baseOffset <= offset && b.lastOffset >= offset)?.baseOffset,
      firstNewerThan: (from, ts) => batches.find((b) => b.baseOffset >= from && b.maxTimestamp > ts)?.baseOffset,
      firstFrom: (from) => batches.find((b) => b.baseOffset >= from),
    };
  }

  batches(
    topic: string,
    partition: number,
    from: number,
    to: number,
    maxBytes: number,
    maxCount: number,
  ): CleanerBatch[] {
    const out: CleanerBatch[] = [];
    let bytes = 0;
    const batches = this.log(topic, partition)?.batches ?? [];
    for (let i = firstFrom(batches, from); i < batches.length; i++) {
      const b = batches[i]!;
      if (b.baseOffset >= to || (out.length > 0 && (bytes >= maxBytes || out.length >= maxCount))) break;
      out.push({ ...b, deleteHorizonMs: b.deleteHorizonMs ?? -1 });
      bytes += b.size;
    }
    return out;
  }

  aborted(topic: string, partition: number): AbortedTransaction[] {
    return [...(this.log(topic, partition)?.aborted ?? [])];
  }

  producerNewestBatches(topic: string, partition: number): Set<number> {
    const out = new Set<number>();
    for (const state of this.log(topic, partition)?.producers.values() ?? []) {
      const newest = state.batches[state.batches.length - 1];
      if (newest) out.add(newest.baseOffset);
    }
    return out;
  }

  apply(topic: string, partition: number, changes: readonly BatchChange[]): number {
    const log = this.log(topic, partition);
    if (!log) return 0;
    let freed = 0;
    for (const c of changes) {
      const i = firstFrom(log.batches, c.baseOffset);
      if (log.batches[i]?.baseOffset !== c.baseOffset) continue;
      const b = log.batches[i]!;
      if (c.kind === 'delete') {
        log.batches.splice(i, 1);
        log.bytes -= b.size;
        freed += b.size;
      } else if (c.kind === 'horizon') {
        log.batches[i] = { ...b, deleteHorizonMs: c.deleteHorizonMs };
      } else {
        log.batches[i] = {
          ...b,
          data: c.data,
          size: c.data.length,
          recordCount: c.recordCount,
          maxTimestamp: c.maxTimestamp,
          deleteHorizonMs: c.deleteHorizonMs,
        };
        log.bytes += c.data.length - b.size;
        freed += b.size - c.data.length;
      }
    }
    return freed;
  }

  checkpoint(topic: string, partition: number, checkpoint: CleanerCheckpoint): void {
    const log = this.log(topic, partition);
    if (log) log.cleaner = { ...checkpoint };
  }

  lastCheckpoint(topic: string, partition: number): CleanerCheckpoint | undefined {
    const c = this.log(topic, partition)?.cleaner;
    return c && { ...c };
  }

  reclaim(): void {}
}

/** Index of the first batch whose base offset is at least `offset` (binary search; batches are in offset order). */
function firstFrom(batches: readonly { baseOffset: number }[], offset: number): number {
  let lo = 0;
  let hi = batches.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (batches[mid]!.baseOffset < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
