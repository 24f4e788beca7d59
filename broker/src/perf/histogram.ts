// Latency bookkeeping: an HDR histogram (hdr-histogram-js) of microseconds for the whole run, so
// percentiles cost O(1) memory at any record count, plus a cheap window (count, bytes, sum, max)
// for the periodic progress line, as kafka-producer-perf-test keeps.
import * as hdr from 'hdr-histogram-js';

export interface Percentiles {
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  p999Ms: number;
}

export interface LatencySummary extends Percentiles {
  count: number;
  avgMs: number;
  maxMs: number;
  minMs: number;
}

/** Microsecond resolution with 3 significant digits: 0.1 % error at any magnitude. */
export class LatencyHistogram {
  private readonly h = hdr.build({
    bitBucketSize: 32,
    numberOfSignificantValueDigits: 3,
    lowestDiscernibleValue: 1,
    autoResize: true,
  });
  private sumUs = 0;

  /** Records `count` samples of `latencyMs` (negative values, from clock jitter, count as 0). */
  record(latencyMs: number, count = 1): void {
    const us = Math.max(0, Math.round(latencyMs * 1000));
    if (count === 1) this.h.recordValue(us);
    else this.h.recordValueWithCount(us, count);
    this.sumUs += us * count;
  }

  get count(): number {
    return this.h.totalCount;
  }

  /** Value at percentile p (0-100), in ms; 0 when empty. */
  percentileMs(p: number): number {
    return this.h.totalCount === 0 ? 0 : this.h.getValueAtPercentile(p) / 1000;
  }

  summary(): LatencySummary {
    const n = this.h.totalCount;
    return {
      count: n,
      avgMs: n === 0 ? 0 : this.sumUs / n / 1000,
      maxMs: n === 0 ? 0 : this.h.maxValue / 1000,
      minMs: n === 0 ? 0 : this.h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : this.h.minNonZeroValue / 1000,
      p50Ms: this.percentileMs(50),
      p95Ms: this.percentileMs(95),
      p99Ms: this.percentileMs(99),
      p999Ms: this.percentileMs(99.9),
    };
  }

  reset(): void {
    this.h.reset();
    this.sumUs = 0;
  }
}

/** Counters for one reporting interval. */
export class Window {
  records = 0;
  bytes = 0;
  errors = 0;
  private sumMs = 0;
  maxMs = 0;
  /** The window's p99 for graphite (sangrenel reports a high percentile per interval). */
  readonly histogram = new LatencyHistogram();

  constructor(public startMs: number) {}

  record(latencyMs: number, count: number, bytes: number): void {
    this.records += count;
    this.bytes += bytes;
    this.sumMs += latencyMs * count;
    if (latencyMs > this.maxMs) this.maxMs = latencyMs;
    this.histogram.record(latencyMs, count);
  }

  get avgMs(): number {
    return this.records === 0 ? 0 : this.sumMs / this.records;
  }

  reset(startMs: number): void {
    this.startMs = startMs;
    this.records = 0;
    this.bytes = 0;
    this.errors = 0;
    this.sumMs = 0;
    this.maxMs = 0;
    this.histogram.reset();
  }
}
