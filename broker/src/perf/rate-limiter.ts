// The send schedule shared by all producers. Under --throughput R record i is *intended* to be sent
// at start + i/R, whatever happens to earlier records; a producer that is late (waiting for an ack,
// or a stalled broker) takes the overdue records later, and their latency still counts from the
// intended time. That is what keeps the percentiles honest: a tool that waits for the broker
// before scheduling the next send measures only the requests it managed to send
// ("coordinated omission", Gil Tene). Unlimited (-1): a record is intended when it is taken.
// Pure and clock-free: callers pass `nowMs`, so tests drive it with a fake clock.

export interface ScheduleOptions {
  /** Records per second; -1 is unlimited. */
  ratePerSec: number;
  /** Total records to send (Infinity with a duration). */
  totalRecords: number;
  /** Clock value at which record 0 is intended. */
  startMs: number;
  /** No record intended at or after this (Infinity with a record count). */
  endMs: number;
}

/** Records [first, first + count), intended at intendedMs(i). */
export interface Claim {
  first: number;
  count: number;
}

export type TakeResult = { claim: Claim } | { waitUntilMs: number } | { done: true };

export class Schedule {
  private claimed = 0;
  /** Intended times of unlimited claims, by first index (the other records follow the formula). */
  private readonly unlimitedAt = new Map<number, number>();
  private readonly intervalMs: number;

  constructor(readonly opts: ScheduleOptions) {
    if (opts.ratePerSec === 0 || opts.ratePerSec < -1)
      throw new RangeError(`rate ${opts.ratePerSec}: expected > 0 or -1`);
    this.intervalMs = opts.ratePerSec > 0 ? 1000 / opts.ratePerSec : 0;
  }

  get unlimited(): boolean {
    return this.opts.ratePerSec < 0;
  }

  /** Records handed out so far. */
  get taken(): number {
    return this.claimed;
  }

  /** How many records the schedule will hand out in all (Infinity if unbounded). */
  get capacity(): number {
    const { totalRecords, endMs, startMs } = this.opts;
    if (this.unlimited || endMs === Infinity) return totalRecords;
    // Records intended strictly before endMs.
    return Math.min(totalRecords, Math.max(0, Math.ceil(((endMs - startMs) * this.opts.ratePerSec) / 1000)));
  }

  /** When record i is meant to be sent (rate-limited schedules). */
  intendedMs(i: number): number {
    return this.opts.startMs + i * this.intervalMs;
  }

  /** Records released by `nowMs`: those intended at or before it. */
  released(nowMs: number): number {
    if (this.unlimited) return this.capacity;
    if (nowMs < this.opts.startMs) return 0;
    // The epsilon absorbs float error, so released(intendedMs(i)) always includes record i.
    return Math.min(this.capacity, Math.floor(((nowMs - this.opts.startMs) * this.opts.ratePerSec) / 1000 + 1e-9) + 1);
  }

  /**
   * Hands a producer up to `maxRecords` due records. A batch goes out when full, or when its first
   * record has waited `lingerMs` (0: at once), or when no more records will come. Otherwise says
   * when to ask again.
   */
  take(nowMs: number, maxRecords: number, lingerMs: number): TakeResult {
    const cap = this.capacity;
    if (this.claimed >= cap) return { done: true };
    if (this.unlimited) {
      if (nowMs >= this.opts.endMs) return { done: true };
      const claim = { first: this.claimed, count: Math.min(maxRecords, cap - this.claimed) };
      this.claimed += claim.count;
      this.unlimitedAt.set(claim.first, nowMs);
      return { claim };
    }
    const released = this.released(nowMs);
    const available = released - this.claimed;
    const first = this.claimed;
    const lingerDeadline = this.intendedMs(first) + lingerMs;
    if (available >= maxRecords || (available > 0 && (nowMs >= lingerDeadline || released === cap))) {
      const count = Math.min(available, maxRecords);
      this.claimed += count;
      return { claim: { first, count } };
    }
    const full = this.intendedMs(Math.min(first + maxRecords, cap) - 1);
    // lingerDeadline is never before the first record's release, so it covers the empty case too.
    return { waitUntilMs: Math.min(full, lingerDeadline) };
  }

  /** Intended time of record i of `claim` (records of an unlimited claim share the take time). */
  intendedOf(claim: Claim, i: number): number {
    const at = this.unlimitedAt.get(claim.first);
    return at ?? this.intendedMs(i);
  }

  /** Forget the bookkeeping of a finished unlimited claim. */
  release(claim: Claim): void {
    this.unlimitedAt.delete(claim.first);
  }
}

/** What a producer does next: send a claim, wait, or stop (the schedule is done or the drain is over). */
export type PaceStep = { claim: Claim } | { waitMs: number } | 'stop';

/**
 * Paces the producers over one shared Schedule: claims of up to `perBatch` records held back up to
 * `lingerMs`, and after a --duration run's end `drainMs` more to send what is still queued.
 */
export class RateController {
  private readonly stopAfterMs: number;

  constructor(
    readonly schedule: Schedule,
    private readonly opts: { perBatch: number; lingerMs: number; durationMs: number | undefined; drainMs: number },
  ) {
    const { durationMs, drainMs } = opts;
    this.stopAfterMs = durationMs === undefined ? Infinity : schedule.opts.startMs + durationMs + drainMs;
  }

  next(nowMs: number): PaceStep {
    if (nowMs > this.stopAfterMs) return 'stop';
    const r = this.schedule.take(nowMs, this.opts.perBatch, this.opts.lingerMs);
    if ('done' in r) return 'stop';
    if ('waitUntilMs' in r) return { waitMs: r.waitUntilMs - nowMs };
    return r;
  }
}
