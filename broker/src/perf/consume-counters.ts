// What a consume run counts, in one object, and the --show-detailed-stats rows printed from it.
import type { PerfIo } from './io';
import { consumerDetailedRow } from './report';

export class ConsumeCounters {
  /** Records counted (up to --num-records) and their key + value bytes. */
  records = 0;
  bytes = 0;
  /** Record batch bytes received (compressed). */
  wireBytes = 0;
  fetches = 0;
  /** Set when no data came for --timeout. */
  timedOut = false;
  /** Monotonic time data last arrived (the start, until some does). */
  lastDataMono = 0;
}

/**
 * kafka-consumer-perf-test's --show-detailed-stats: a row per interval with the running totals and
 * the interval's rates; the first row's rebalance.time.ms is the group join's.
 */
export class DetailedStatsReporter {
  private timer: NodeJS.Timeout | undefined;
  private last: { mono: number; bytes: number; records: number; first: boolean };

  constructor(
    private readonly io: PerfIo,
    private readonly counters: ConsumeCounters,
    startMono: number,
    private readonly rebalanceMs: number,
  ) {
    this.last = { mono: startMono, bytes: 0, records: 0, first: true };
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.report(), intervalMs);
  }

  report(): void {
    const now = this.io.now();
    const { bytes, records } = this.counters;
    const last = this.last;
    this.io.out(
      consumerDetailedRow({
        timeMs: this.io.wallNow(),
        totalBytes: bytes,
        totalRecords: records,
        bytes: bytes - last.bytes,
        records: records - last.records,
        elapsedMs: now - last.mono,
        rebalanceMs: last.first ? this.rebalanceMs : 0,
      }),
    );
    this.last = { mono: now, bytes, records, first: false };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
