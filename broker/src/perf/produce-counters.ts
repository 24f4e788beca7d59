// What a produce run counts, in one object: the summary's totals, the whole-run latency histograms
// (from intended send time, and from the request's write) and the current reporting window.
import { LatencyHistogram, Window } from './histogram';
import type { Claim, Schedule } from './rate-limiter';

/** A batch of records of one claim, acknowledged together: their indexes and key+value bytes. */
export interface AckedBatch {
  indexes: number[];
  bytes: number;
}

export class ProduceCounters {
  /** Acknowledged records after warm-up, and their key+value bytes. */
  records = 0;
  bytes = 0;
  /** Batch bytes on the wire (compressed), all records. */
  wireBytes = 0;
  requests = 0;
  errors = 0;
  firstError: string | null = null;
  /** Records of a --duration run never sent (see abandonUnsent). */
  abandoned = 0;
  /** Acknowledged records, warm-up included (the progress bar's count). */
  acked = 0;
  readonly latency = new LatencyHistogram();
  readonly service = new LatencyHistogram();
  /** --transactional-id: from each record's intended time to its transaction's commit (EndTxn answered). */
  readonly commit = new LatencyHistogram();
  readonly window: Window;
  /** Intended time of the first record after warm-up. */
  private steadyStartMs = Infinity;
  private lastAckMs: number;

  constructor(
    private readonly startMs: number,
    private readonly warmupRecords: number,
  ) {
    this.window = new Window(startMs);
    this.lastAckMs = startMs;
  }

  /** A request answered (or, with acks=0, written) at ackMs. */
  answeredAt(ackMs: number): void {
    this.lastAckMs = Math.max(this.lastAckMs, ackMs);
  }

  failed(records: number, error: string): void {
    this.errors += records;
    this.window.errors += records;
    this.firstError ??= error;
  }

  /**
   * Latency from each record's intended time to ackMs; warm-up records go to the window only. An
   * unlimited schedule's claim shares one take time: one histogram update for the whole batch.
   */
  acknowledged(b: AckedBatch, claim: Claim, schedule: Schedule, ackMs: number, serviceMs: number): void {
    this.acked += b.indexes.length;
    const perRecordBytes = b.bytes / b.indexes.length;
    const steady = schedule.unlimited
      ? this.ackedTogether(b, schedule.intendedOf(claim, b.indexes[0]!), ackMs)
      : this.ackedOneByOne(b.indexes, schedule, ackMs, perRecordBytes);
    if (steady > 0) this.service.record(serviceMs, steady);
    this.records += steady;
    this.bytes += perRecordBytes * steady;
  }

  /**
   * The intended times of a batch's records after warm-up, as [ms, count] (one pair for an
   * unlimited claim, whose records share one take time), kept until their transaction commits.
   * Call before the schedule releases the claim.
   */
  intendedTimes(indexes: number[], claim: Claim, schedule: Schedule): [number, number][] {
    const steady = indexes.filter((i) => i >= this.warmupRecords);
    if (steady.length === 0) return [];
    if (schedule.unlimited) return [[schedule.intendedOf(claim, steady[0]!), steady.length]];
    return steady.map((i) => [schedule.intendedMs(i), 1]);
  }

  /** A transaction committed at commitMs: its records' latency to commit. */
  committed(times: readonly [number, number][], commitMs: number): void {
    for (const [intended, count] of times) this.commit.record(commitMs - intended, count);
  }

  /**
   * Records of a --duration run that could not be sent in time: counted in the histogram at the
   * time they waited (a lower bound), so an overloaded broker is not flattered.
   */
  abandonUnsent(schedule: Schedule, nowMs: number): void {
    for (let i = schedule.taken; !schedule.unlimited && i < schedule.capacity; i++) {
      if (i >= this.warmupRecords) this.latency.record(nowMs - schedule.intendedMs(i));
      this.abandoned++;
    }
  }

  /** The measured span: from the first steady record's intended time (or the start) to the last answer. */
  elapsedMs(): number {
    const from = this.warmupRecords > 0 && this.steadyStartMs !== Infinity ? this.steadyStartMs : this.startMs;
    return Math.max(1e-3, this.lastAckMs - from);
  }

  private ackedTogether(b: AckedBatch, intended: number, ackMs: number): number {
    let steady = 0;
    for (const i of b.indexes) if (i >= this.warmupRecords) steady++;
    this.window.record(ackMs - intended, b.indexes.length, b.bytes);
    if (steady > 0) {
      this.latency.record(ackMs - intended, steady);
      this.steadyStartMs = Math.min(this.steadyStartMs, intended);
    }
    return steady;
  }

  private ackedOneByOne(indexes: number[], schedule: Schedule, ackMs: number, perRecordBytes: number): number {
    let steady = 0;
    for (const i of indexes) {
      const intended = schedule.intendedMs(i);
      this.window.record(ackMs - intended, 1, perRecordBytes);
      if (i < this.warmupRecords) continue;
      steady++;
      if (intended < this.steadyStartMs) this.steadyStartMs = intended;
      this.latency.record(ackMs - intended);
    }
    return steady;
  }
}
