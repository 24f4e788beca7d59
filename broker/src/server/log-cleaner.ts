// The compactor's scheduler (Kafka's log.cleaner.backoff.ms loop, issue 17): every backoff it asks
// storage for compaction steps, yielding to the event loop between steps (each is a bounded slice:
// a few batches read, filtered and written in one short transaction), until nothing needs
// cleaning. One run at a time; stop() ends it before the storage closes.
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';

export interface LogCleanerOptions {
  backoffMs: number;
  dedupeBytes: number;
  /** The broker-level topic defaults (log.cleanup.policy ...), read at each run. */
  brokerDefaults: () => Record<string, string> | Promise<Record<string, string>>;
  now: () => number;
  logger: Logger;
  /** The partitions this broker cleans (several brokers on one database: those it leads); default all. */
  cleans?: (topic: string, partition: number) => boolean;
  /** Called after a pass removed bytes (the disk-space cache is stale). */
  onFreed?: () => void;
}

export class LogCleanerTask {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly opts: LogCleanerOptions,
  ) {}

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.opts.backoffMs);
    this.timer.unref();
  }

  /** Steps until idle (or stopped); errors are logged and the next run tries again. */
  async runOnce(): Promise<void> {
    const { logger } = this.opts;
    try {
      const brokerDefaults = await this.opts.brokerDefaults();
      for (;;) {
        if (this.stopped) return;
        const r = await this.storage.compactStep(this.opts.now(), {
          brokerDefaults,
          dedupeBytes: this.opts.dedupeBytes,
          minPassIntervalMs: this.opts.backoffMs,
          cleans: this.opts.cleans,
        });
        if (r.passDone) {
          logger.info('compacted partition', { ...r.passDone });
          if (r.passDone.bytesAfter < r.passDone.bytesBefore) this.opts.onFreed?.();
        }
        if (!r.working) return;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      logger.error('compaction step failed', { err });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
