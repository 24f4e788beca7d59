// One share-partition's delivery state (KIP-932; Kafka's kafka.server.share.SharePartition): which
// records of one topic-partition a share group has handed out, to whom, how often, and which are done.
// Offsets below `startOffset` (the SPSO) are done; offsets from `endOffset` (the SPEO) on were never
// handed out. In between every offset has a state:
//   AVAILABLE -> ACQUIRED (fetched by one member, under an acquisition lock)
//   ACQUIRED  -> ACKNOWLEDGED (accept) | ARCHIVED (reject, gap) | AVAILABLE (release, lock timeout)
// and a release or a lock timeout archives a record whose delivery count reached the limit.
// The start offset moves over every finished (acknowledged or archived) offset at its front.
// Pure: the caller passes `now` and persists `snapshot()` (share-persistence.ts).
import type { StoredSharePartition } from '../../storage/share-store';

export enum RecordState {
  AVAILABLE = 0,
  ACQUIRED = 1,
  ACKNOWLEDGED = 2,
  ARCHIVED = 4,
}

/** ShareFetch/ShareAcknowledge AcknowledgeTypes (KIP-932): 0 gap, 1 accept, 2 release, 3 reject. */
export enum AcknowledgeType {
  GAP = 0,
  ACCEPT = 1,
  RELEASE = 2,
  REJECT = 3,
}

export interface InFlightRecord {
  state: RecordState;
  deliveryCount: number;
  /** The member holding it while ACQUIRED, else ''. */
  memberId: string;
  /** When the acquisition lock ends (ms), while ACQUIRED. */
  lockUntil: number;
}

/** A run of acquired offsets with one delivery count (ShareFetchResponse.AcquiredRecords). */
export interface AcquiredRange {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

export interface SharePartitionLimits {
  /** group.share.delivery.count.limit (Kafka default 5). */
  deliveryCountLimit: number;
  /** group.share.record.lock.duration.ms (Kafka default 30 s). */
  lockDurationMs: number;
  /** group.share.partition.max.record.locks: at most this many records in flight (Kafka 2000). */
  maxInFlight: number;
}

export const KAFKA_SHARE_LIMITS: SharePartitionLimits = {
  deliveryCountLimit: 5,
  lockDurationMs: 30_000,
  maxInFlight: 2000,
};

/** What is persisted (storage/share-store.ts): enough to resume after a restart. */
export type SharePartitionSnapshot = StoredSharePartition;

const finished = (s: RecordState) => s === RecordState.ACKNOWLEDGED || s === RecordState.ARCHIVED;

export class SharePartition {
  private readonly inFlight = new Map<number, InFlightRecord>();

  constructor(
    public startOffset: number,
    public endOffset: number,
    private readonly limits: SharePartitionLimits = KAFKA_SHARE_LIMITS,
  ) {}

  static fromSnapshot(s: SharePartitionSnapshot, limits: SharePartitionLimits = KAFKA_SHARE_LIMITS): SharePartition {
    const p = new SharePartition(s.startOffset, s.endOffset, limits);
    for (const r of s.records) {
      // An acquisition does not survive a restart: its member's lock went with the broker.
      const state = r.state === RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state;
      p.inFlight.set(r.offset, { state, deliveryCount: r.deliveryCount, memberId: '', lockUntil: 0 });
    }
    p.advanceStart();
    return p;
  }

  snapshot(): SharePartitionSnapshot {
    const records = [...this.inFlight.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([offset, r]) => ({
        offset,
        // An acquisition does not survive a restart: its member's lock goes with the broker.
        state: r.state === RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state,
        deliveryCount: r.deliveryCount,
      }));
    return { startOffset: this.startOffset, endOffset: this.endOffset, records };
  }

  record(offset: number): InFlightRecord | undefined {
    return this.inFlight.get(offset);
  }

  /** Where the next read starts: the first AVAILABLE offset in flight, else the end offset. */
  nextFetchOffset(now: number): number {
    this.expireLocks(now);
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const r = this.inFlight.get(o);
      if (!r || r.state === RecordState.AVAILABLE) return o;
    }
    return this.endOffset;
  }

  /**
   * Whether a fetch could acquire anything here (Kafka's SharePartition.canAcquireRecords): a record
   * in flight is available again, or fewer than group.share.partition.max.record.locks are in
   * flight. A share-partition at its limit is left out of a ShareFetch (DelayedShareFetch).
   */
  canAcquireRecords(now: number): boolean {
    return this.nextFetchOffset(now) < this.endOffset || this.inFlight.size < this.limits.maxInFlight;
  }

  /**
   * Acquires for `memberId` up to `maxRecords` offsets in [from, to] (the offsets of the batches
   * read) that are AVAILABLE or never handed out. Returns them as ranges. Offsets in `skip` (the
   * records of aborted transactions, for read_committed) are archived instead, as Kafka's
   * SharePartition does with them: never delivered.
   */
  acquire(
    memberId: string,
    from: number,
    to: number,
    maxRecords: number,
    now: number,
    opts: { lockDurationMs?: number; skip?: ReadonlyArray<{ first: number; last: number }> } = {},
  ): AcquiredRange[] {
    this.expireLocks(now);
    const lockDurationMs = opts.lockDurationMs ?? this.limits.lockDurationMs;
    const skip = opts.skip ?? [];
    const ranges: AcquiredRange[] = [];
    let taken = 0;
    let archived = false;
    for (let o = Math.max(from, this.startOffset); o <= to && taken < maxRecords; o++) {
      let r = this.inFlight.get(o);
      if (o >= this.endOffset) {
        if (this.inFlight.size >= this.limits.maxInFlight) break;
        // Offsets skipped between the old end and `o` (none in a contiguous read) stay available.
        for (let gap = this.endOffset; gap < o; gap++) this.inFlight.set(gap, this.fresh());
        this.endOffset = o + 1;
        r = this.fresh();
        this.inFlight.set(o, r);
      }
      if (!r || r.state !== RecordState.AVAILABLE) continue;
      if (skip.some((s) => s.first <= o && o <= s.last)) {
        this.settle(r, RecordState.ARCHIVED);
        archived = true;
        continue;
      }
      r.state = RecordState.ACQUIRED;
      r.deliveryCount++;
      r.memberId = memberId;
      r.lockUntil = now + lockDurationMs;
      taken++;
      const last = ranges[ranges.length - 1];
      if (last && last.lastOffset === o - 1 && last.deliveryCount === r.deliveryCount) last.lastOffset = o;
      else ranges.push({ firstOffset: o, lastOffset: o, deliveryCount: r.deliveryCount });
    }
    if (archived) this.advanceStart();
    return ranges;
  }

  /**
   * Applies one acknowledgement batch of `memberId`: `types` has one type for the whole range or one
   * per offset. All-or-nothing: false (INVALID_RECORD_STATE) when any offset is not ACQUIRED by
   * this member, e.g. its lock expired and another member holds it now.
   */
  acknowledge(
    memberId: string,
    firstOffset: number,
    lastOffset: number,
    types: readonly number[],
    now: number,
  ): boolean {
    this.expireLocks(now);
    if (lastOffset < firstOffset || (types.length !== 1 && types.length !== lastOffset - firstOffset + 1)) return false;
    // Offsets below the start offset are settled already: skipped, as Kafka's SharePartition does
    // ("already archived"), not an error.
    for (let o = Math.max(firstOffset, this.startOffset); o <= lastOffset; o++) {
      const type = types.length === 1 ? types[0]! : types[o - firstOffset]!;
      const r = this.inFlight.get(o);
      // A gap (an offset with no record, e.g. compacted away) may be named in any state the
      // client saw it in; everything else must be held by this member.
      if (type === AcknowledgeType.GAP && (!r || r.state !== RecordState.ACQUIRED)) continue;
      if (!r || r.state !== RecordState.ACQUIRED || r.memberId !== memberId) return false;
      if (type < AcknowledgeType.GAP || type > AcknowledgeType.REJECT) return false;
    }
    for (let o = Math.max(firstOffset, this.startOffset); o <= lastOffset; o++) {
      const type = types.length === 1 ? types[0]! : types[o - firstOffset]!;
      const r = this.inFlight.get(o);
      if (!r || r.state !== RecordState.ACQUIRED) continue;
      if (type === AcknowledgeType.ACCEPT) this.settle(r, RecordState.ACKNOWLEDGED);
      else if (type === AcknowledgeType.RELEASE) this.makeAvailable(r);
      else this.settle(r, RecordState.ARCHIVED);
    }
    this.advanceStart();
    return true;
  }

  /** A member left or closed its share session: its acquired records go back (Kafka does the same). */
  releaseMember(memberId: string): number {
    let n = 0;
    for (const r of this.inFlight.values()) {
      if (r.state === RecordState.ACQUIRED && r.memberId === memberId) {
        this.makeAvailable(r);
        n++;
      }
    }
    this.advanceStart();
    return n;
  }

  /** Lock timeouts: an ACQUIRED record whose lock ended goes back (or is archived at the limit). */
  expireLocks(now: number): boolean {
    let changed = false;
    for (const r of this.inFlight.values()) {
      if (r.state === RecordState.ACQUIRED && r.lockUntil <= now) {
        this.makeAvailable(r);
        changed = true;
      }
    }
    if (changed) this.advanceStart();
    return changed;
  }

  /** The earliest lock end among ACQUIRED records, or undefined. */
  nextLockEnd(): number | undefined {
    let min: number | undefined;
    for (const r of this.inFlight.values()) {
      if (r.state === RecordState.ACQUIRED && (min === undefined || r.lockUntil < min)) min = r.lockUntil;
    }
    return min;
  }

  /** The log start offset moved past the start (retention, DeleteRecords): those records are gone. */
  moveStartTo(offset: number): void {
    if (offset <= this.startOffset) return;
    for (let o = this.startOffset; o < offset; o++) this.inFlight.delete(o);
    this.startOffset = offset;
    if (this.endOffset < offset) this.endOffset = offset;
  }

  private fresh(): InFlightRecord {
    return { state: RecordState.AVAILABLE, deliveryCount: 0, memberId: '', lockUntil: 0 };
  }

  private makeAvailable(r: InFlightRecord): void {
    if (r.deliveryCount >= this.limits.deliveryCountLimit) this.settle(r, RecordState.ARCHIVED);
    else {
      r.state = RecordState.AVAILABLE;
      r.memberId = '';
      r.lockUntil = 0;
    }
  }

  private settle(r: InFlightRecord, state: RecordState): void {
    r.state = state;
    r.memberId = '';
    r.lockUntil = 0;
  }

  private advanceStart(): void {
    while (this.startOffset < this.endOffset) {
      const r = this.inFlight.get(this.startOffset);
      if (!r || !finished(r.state)) break;
      this.inFlight.delete(this.startOffset);
      this.startOffset++;
    }
  }
}
