// What a produce run prints while it runs: a progress line per --report-interval (with its
// figures sent to graphite if asked), and a TTY progress bar when --num-records gives an end.
import { GraphiteSender, graphiteLines } from './graphite';
import type { PerfIo } from './io';
import type { ProduceOptions } from './options';
import type { ProduceCounters } from './produce-counters';
import { producerProgressLine, progressBar } from './report';

/** How often the TTY bar is redrawn. */
const BAR_REDRAW_MS = 250;

export type ReporterOptions = Pick<ProduceOptions, 'numRecords' | 'reportIntervalMs' | 'graphite' | 'graphitePrefix'>;

export class ProduceReporter {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly graphite: GraphiteSender | undefined;
  private readonly showBar: boolean;

  constructor(
    private readonly opts: ReporterOptions,
    private readonly io: PerfIo,
    private readonly counters: ProduceCounters,
    private readonly startMs: number,
  ) {
    this.showBar = io.isTTY && io.bar !== undefined && opts.numRecords !== undefined;
    if (opts.graphite) this.graphite = new GraphiteSender(opts.graphite.host, opts.graphite.port, io.err);
  }

  start(): void {
    this.timers.push(setInterval(() => this.report(), this.opts.reportIntervalMs));
    if (this.showBar) this.timers.push(setInterval(() => this.drawBar(), BAR_REDRAW_MS));
  }

  /** Prints the window's progress line, sends it to graphite and starts the next window. */
  report(): void {
    const now = this.io.now();
    const window = this.counters.window;
    const elapsedMs = now - window.startMs;
    if (this.showBar) this.io.bar!('');
    this.io.out(
      producerProgressLine({
        records: window.records,
        bytes: window.bytes,
        elapsedMs,
        avgMs: window.avgMs,
        maxMs: window.maxMs,
      }),
    );
    this.sendGraphite(elapsedMs);
    window.reset(now);
    this.drawBar();
  }

  /** Stops the timers, prints the last partial window if it saw anything and clears the bar. */
  finish(): void {
    this.stop();
    const window = this.counters.window;
    if (window.records > 0 || window.errors > 0) this.report();
    if (this.showBar) this.io.bar!('');
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
  }

  async close(): Promise<void> {
    this.stop();
    await this.graphite?.close();
  }

  private drawBar(): void {
    if (!this.showBar) return;
    const elapsed = this.io.now() - this.startMs;
    const acked = this.counters.acked;
    this.io.bar!(progressBar(acked, this.opts.numRecords!, elapsed > 0 ? (acked * 1000) / elapsed : 0));
  }

  private sendGraphite(elapsedMs: number): void {
    if (!this.graphite) return;
    const window = this.counters.window;
    const s = elapsedMs / 1000;
    const figures = {
      rate: window.records / s,
      errorRate: window.errors / s,
      bytesPerSec: window.bytes / s,
      p99Ms: window.histogram.percentileMs(99),
    };
    this.graphite.send(graphiteLines(this.opts.graphitePrefix, figures, this.io.wallNow()));
  }
}
