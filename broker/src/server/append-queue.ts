// Group commit: produce requests that arrive together (same turn of the event loop) are appended
// in ONE storage transaction, so one commit (and with synchronous=FULL one fsync) serves them all.
import { ErrorCode } from '../protocol/error-codes';
import type { PartitionAppend, PartitionAppendResult, Storage } from '../storage/storage';
import type { Logger } from './logger';

interface Pending {
  parts: readonly PartitionAppend[];
  resolve: (r: PartitionAppendResult[]) => void;
}

export class AppendQueue {
  private pending: Pending[] = [];
  private scheduled = false;
  /** Transactions committed and requests they carried (for logs and benchmarks). */
  readonly stats = { transactions: 0, requests: 0 };

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
    private readonly onAppended: (parts: readonly PartitionAppend[]) => void,
    private readonly now: () => number = Date.now,
  ) {}

  append(parts: readonly PartitionAppend[]): Promise<PartitionAppendResult[]> {
    return new Promise((resolve) => {
      this.pending.push({ parts, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const all = batch.flatMap((p) => p.parts);
    let results: PartitionAppendResult[];
    try {
      results = this.storage.append(all, this.now());
      this.stats.transactions++;
      this.stats.requests += batch.length;
    } catch (err) {
      this.logger.error('append failed; answering KAFKA_STORAGE_ERROR', { err, partitions: all.length });
      results = all.map(() => ({
        errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
        baseOffset: -1,
        logAppendTimeMs: -1,
        logStartOffset: -1,
        errorMessage: `storage error: ${(err as Error).message}`,
      }));
    }
    let at = 0;
    for (const p of batch) {
      p.resolve(results.slice(at, at + p.parts.length));
      at += p.parts.length;
    }
    this.onAppended(all);
  }
}
