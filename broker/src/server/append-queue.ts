// Group commit: produce requests that arrive together are appended in ONE storage transaction, so
// one commit (and with synchronous=FULL one fsync) serves them all.
//
// Commit pacing: a commit starts at most once per `commitIntervalMs`. Under a stream of small
// requests (Kafka clients with linger.ms=0 send one per record or two) the requests that arrive
// during the interval share the next commit: commits, not bytes, are what cost CPU at such rates
// (~50-80 µs each whatever their size, bench/commit-cost.bench.ts), and a t3.micro has 10 % of a
// core to spend. The wait is skipped when it cannot pay off:
// - a request after a quiet spell commits at the end of the current event-loop turn;
// - once `maxPendingBytes` are pending (64 KiB: 4 requests of Kafka's default 16 KiB batch), the
//   commit is big enough for its fixed cost not to matter: throughput clients do not wait;
// - a closed loop (one producer, one request in flight) sends nothing while it waits for us, so
//   after 5 waits in a row that gathered no second request, pacing pauses for 500 commits (an open
//   stream at the seed rate has ~1 in 4 waits gather nothing: 5 in a row is ~1 in 1,000).
//
// One append is in flight at a time (issue 18: storage answers with a Promise): requests arriving
// while it is join the next one, which starts when it ends. A synchronous engine behind promised()
// settles before any I/O is read, so for SQLite nothing changes.
import { performance } from 'node:perf_hooks';
import { ErrorCode } from '../protocol/error-codes';
import type { DiskSpace } from '../storage/disk-space';
import { StorageError } from '../storage/storage';
import type { PartitionAppend, PartitionAppendResult, Storage } from '../storage/storage';
import type { Logger } from '../logger';

interface Pending {
  parts: readonly PartitionAppend[];
  resolve: (r: PartitionAppendResult[]) => void;
}

export interface AppendQueueOptions {
  /** Minimum time between the starts of two commits (0: commit every turn of the event loop). */
  commitIntervalMs?: number;
  /** Commit without waiting out the interval once this many bytes of batches are pending (64 KiB). */
  maxPendingBytes?: number;
  now?: () => number;
  /** Monotonic clock for the pacing, in ms (tests pass a fake). */
  clock?: () => number;
  /** Told of the bytes appended (its check follows them) and of a commit that found the disk full. */
  diskSpace?: DiskSpace;
}

export class AppendQueue {
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** An append is in flight: its end schedules the next one. */
  private flushing = false;
  private immediate: NodeJS.Immediate | undefined;
  private lastCommitStart = -Infinity;
  /** Paced commits in a row that carried a single request: the wait gathered nothing. */
  private fruitlessWaits = 0;
  /** Pacing is paused until this many transactions have committed. */
  private pacedAgainAt = 0;
  private readonly commitIntervalMs: number;
  private readonly maxPendingBytes: number;
  private readonly now: () => number;
  private readonly clock: () => number;
  private readonly diskSpace: DiskSpace | undefined;
  /** Transactions committed and requests they carried (for logs and benchmarks). */
  readonly stats = { transactions: 0, requests: 0 };

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
    private readonly onAppended: (parts: readonly PartitionAppend[]) => void,
    options: AppendQueueOptions = {},
  ) {
    this.commitIntervalMs = options.commitIntervalMs ?? 0;
    this.maxPendingBytes = options.maxPendingBytes ?? 64 * 1024;
    this.now = options.now ?? Date.now;
    this.clock = options.clock ?? (() => performance.now());
    this.diskSpace = options.diskSpace;
  }

  append(parts: readonly PartitionAppend[]): Promise<PartitionAppendResult[]> {
    return new Promise((resolve) => {
      this.pending.push({ parts, resolve });
      for (const p of parts) for (const b of p.batches) this.pendingBytes += b.data.length;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.immediate || this.flushing) return;
    const paced = this.stats.transactions >= this.pacedAgainAt;
    const wait = paced ? this.lastCommitStart + this.commitIntervalMs - this.clock() : 0;
    if (wait <= 0 || this.pendingBytes >= this.maxPendingBytes) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.immediate = setImmediate(() => void this.flush(false));
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(true), wait);
    }
  }

  /** `waited`: the commit waited out the interval (the pacing's bet), rather than running at once. */
  private async flush(waited: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    if (waited) this.learnFromWait(batch.length);
    this.lastCommitStart = this.clock();
    const all = batch.length === 1 ? batch[0]!.parts : batch.flatMap((p) => p.parts);
    let results: PartitionAppendResult[];
    this.flushing = true;
    try {
      results = await this.storage.append(all, this.now());
      this.stats.transactions++;
      this.stats.requests += batch.length;
      if (this.diskSpace) for (const p of all) for (const b of p.batches) this.diskSpace.appended(b.data.length);
    } catch (err) {
      const full = err instanceof StorageError && err.diskFull && this.diskSpace !== undefined;
      // A full disk is the free-space floor's answer (produce.ts: POLICY_VIOLATION, not retried);
      // any other storage failure is Kafka's KAFKA_STORAGE_ERROR.
      if (full) this.diskSpace!.full();
      else this.logger.error('append failed; answering KAFKA_STORAGE_ERROR', { err, partitions: all.length });
      const errorCode = full ? ErrorCode.POLICY_VIOLATION : ErrorCode.KAFKA_STORAGE_ERROR;
      const errorMessage = full
        ? this.diskSpace!.refresh().message || `disk full: ${(err as Error).message}`
        : `storage error: ${(err as Error).message}`;
      results = all.map(() => ({ errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage }));
    } finally {
      this.flushing = false;
    }
    let at = 0;
    for (const p of batch) {
      p.resolve(batch.length === 1 ? results : results.slice(at, at + p.parts.length));
      at += p.parts.length;
    }
    this.onAppended(all);
    if (this.pending.length > 0) this.schedule();
  }

  private learnFromWait(requests: number): void {
    if (requests > 1) {
      this.fruitlessWaits = 0;
    } else if (++this.fruitlessWaits >= 5) {
      this.fruitlessWaits = 0;
      this.pacedAgainAt = this.stats.transactions + 500;
    }
  }
}
