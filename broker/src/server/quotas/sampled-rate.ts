// Kafka's Rate over a windowed sum (org.apache.kafka.common.metrics.stats.Rate / SampledStat),
// the measure behind every client quota (KIP-13 byte rates, KIP-124 request time, KIP-612
// connection rate): `samples` windows of `windowMs`; the rate divides their sum by the time they
// span, counted as at least samples-1 full windows so a fresh sensor does not read as a burst.

export interface RateWindow {
  /** quota.window.num */
  samples: number;
  /** quota.window.size.seconds, in ms */
  windowMs: number;
}

interface Sample {
  value: number;
  startMs: number;
  lastEventMs: number;
}

export class SampledRate {
  // samples + 1 slots: Kafka keeps one extra for the sample overlapping the window's start.
  private readonly slots: Sample[] = [];
  private current = 0;

  constructor(private readonly window: RateWindow) {}

  /** Adds `value` (bytes, percent of a second, connections) at `nowMs`. */
  record(value: number, nowMs: number): void {
    let sample = this.currentSample(nowMs);
    if (nowMs - sample.startMs >= this.window.windowMs) {
      this.current = (this.current + 1) % (this.window.samples + 1);
      if (this.current >= this.slots.length)
        this.slots.push((sample = { value: 0, startMs: nowMs, lastEventMs: nowMs }));
      else reset((sample = this.slots[this.current]!), nowMs);
    }
    sample.value += value;
    sample.lastEventMs = nowMs;
  }

  /** Units per second over the window. */
  measure(nowMs: number): number {
    const windowMs = this.windowSizeMs(nowMs); // purges first, as Kafka's Rate.measure does
    let total = 0;
    for (const s of this.slots) total += s.value;
    return total / (windowMs / 1000);
  }

  /** The time the rate is computed over (Rate.windowSize): never less than samples-1 windows, nor 1 ms. */
  windowSizeMs(nowMs: number): number {
    this.purge(nowMs);
    let oldest = this.currentSample(nowMs).startMs;
    for (const s of this.slots) oldest = Math.min(oldest, s.startMs);
    let elapsed = nowMs - oldest;
    const fullWindows = Math.floor(elapsed / this.window.windowMs);
    const minFullWindows = this.window.samples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.window.windowMs;
    return Math.max(elapsed, 1);
  }

  /** Nothing recorded within the monitored span (samples x window): it measures as a new one would. */
  idleSince(nowMs: number): boolean {
    const expireAge = this.window.samples * this.window.windowMs;
    return this.slots.every((s) => s.value === 0 || nowMs - s.lastEventMs >= expireAge);
  }

  private currentSample(nowMs: number): Sample {
    if (this.slots.length === 0) this.slots.push({ value: 0, startMs: nowMs, lastEventMs: nowMs });
    return this.slots[this.current]!;
  }

  /** Samples with no event within the monitored span start over (SampledStat.purgeObsoleteSamples). */
  private purge(nowMs: number): void {
    const expireAge = this.window.samples * this.window.windowMs;
    for (const s of this.slots) if (nowMs - s.lastEventMs >= expireAge) reset(s, nowMs);
  }
}

function reset(s: Sample, nowMs: number): void {
  s.value = 0;
  s.startMs = nowMs;
  s.lastEventMs = nowMs;
}

/**
 * How long a client over its quota waits (QuotaUtils.throttleTime): long enough that the rate
 * measured over the window comes back to the bound, `(rate - bound) / bound * window`.
 */
export function throttleTimeMs(rate: number, bound: number, windowMs: number): number {
  return Math.round(((rate - bound) / bound) * windowMs);
}

/**
 * Records `value` and returns the throttle time, 0 when the rate stays within `bound` (Kafka's
 * Sensor.record with quota checking: the value counts even when it breaks the quota).
 */
export function recordAndThrottle(rate: SampledRate, value: number, bound: number, nowMs: number): number {
  rate.record(value, nowMs);
  const measured = rate.measure(nowMs);
  if (measured <= bound) return 0;
  return throttleTimeMs(measured, bound, rate.windowSizeMs(nowMs));
}
