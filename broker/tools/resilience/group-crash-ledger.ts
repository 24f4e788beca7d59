// What the kill -9 group suite (group-crash-run.ts) holds the members to, from the lines they print
// (broker/test/java's CrashMembers) in the order they printed them, and from what the producer had
// acknowledged:
// - consumer groups (KIP-848): every acknowledged record is consumed; a record below an offset
//   whose commit was acknowledged is never consumed again (at-least-once: only what follows the
//   last acknowledged commit may come twice, after a crash or a partition move);
// - share groups (KIP-932): every acknowledged record is accepted by some member; a record whose
//   acceptance was acknowledged is never delivered again; each redelivery has a higher delivery
//   count than the delivery before it.
// A line breaking a rule is kept as a violation (with the line); the run reports them all.

/** One line of CrashMembers: member index, event, time (ms), event data. */
export interface MemberLine {
  m: number;
  ev: string;
  t: number;
  data?: unknown;
}

const key = (partition: number, offset: number) => `${partition}:${offset}`;

export class GroupCrashLedger {
  /** Records the producer was acknowledged for, as "partition:offset". */
  readonly produced = new Set<string>();
  /** consumer: record -> times consumed; share: record -> delivery counts seen, in order. */
  readonly deliveries = new Map<string, number[]>();
  /** consumer: the highest acknowledged commit per partition. */
  readonly committed = new Map<number, number>();
  /** share: records whose acceptance was acknowledged, and by which member. */
  readonly accepted = new Map<string, number>();
  /**
   * share: records whose acceptance failed at the client (the broker died before answering): the
   * broker may have applied it or not; the run asks the database which (sharedStateDone).
   */
  readonly ackUnknown = new Set<string>();
  /** Per member, the partitions it was last told it owns (consumer groups). */
  readonly owned = new Map<number, Set<number>>();
  readonly violations: string[] = [];
  readonly counts = {
    recs: 0,
    redelivered: 0,
    commits: 0,
    commitFailures: 0,
    acks: 0,
    ackFailures: 0,
    errors: 0,
    lost: 0,
    revoked: 0,
    assigned: 0,
    left: 0,
  };
  /** The last client errors (commit, acknowledgement, poll), for the report. */
  readonly lastErrors: string[] = [];

  constructor(readonly mode: 'consumer' | 'share') {}

  acknowledgedProduce(partition: number, baseOffset: number, count: number): void {
    for (let o = baseOffset; o < baseOffset + count; o++) this.produced.add(key(partition, o));
  }

  /**
   * Records acknowledged to the producer that no member consumed (consumer) or accepted (share)
   * yet; for share groups, without those whose acceptance's answer was lost unless `all`.
   */
  outstanding(all = false): string[] {
    const done = this.mode === 'consumer' ? this.deliveries : this.accepted;
    return [...this.produced].filter((k) => !done.has(k) && (all || !this.ackUnknown.has(k)));
  }

  private violation(msg: string, line: MemberLine): void {
    if (this.violations.length < 50) this.violations.push(`${msg} (line ${JSON.stringify(line)})`);
  }

  private clientError(line: MemberLine): void {
    this.lastErrors.push(`member ${line.m} ${line.ev}: ${JSON.stringify(line.data)}`);
    if (this.lastErrors.length > 10) this.lastErrors.shift();
  }

  take(line: MemberLine): void {
    if (this.mode === 'consumer') this.takeConsumer(line);
    else this.takeShare(line);
  }

  private takeConsumer(line: MemberLine): void {
    switch (line.ev) {
      case 'recs':
        for (const [p, o] of line.data as Array<[number, number]>) {
          this.counts.recs++;
          const k = key(p, o);
          const seen = this.deliveries.get(k);
          if (seen) {
            seen.push(line.m);
            this.counts.redelivered++;
          } else this.deliveries.set(k, [line.m]);
          const c = this.committed.get(p) ?? 0;
          if (o < c)
            this.violation(
              `member ${line.m} consumed partition ${p} offset ${o} below the acknowledged commit ${c} (consumed before by members ${seen?.join(',') ?? 'none'})`,
              line,
            );
          if (!this.owned.get(line.m)?.has(p))
            this.violation(`member ${line.m} consumed partition ${p}, which it was not assigned`, line);
        }
        return;
      case 'commit':
        this.counts.commits++;
        for (const [p, o] of Object.entries(line.data as Record<string, number>))
          this.committed.set(Number(p), Math.max(this.committed.get(Number(p)) ?? 0, o));
        return;
      case 'assigned':
      case 'revoked':
      case 'lost': {
        this.counts[line.ev]++;
        const mine = this.owned.get(line.m) ?? new Set<number>();
        this.owned.set(line.m, mine);
        for (const p of line.data as number[]) {
          if (line.ev === 'assigned') mine.add(p);
          else mine.delete(p);
        }
        return;
      }
      case 'left':
        // The member's consumer closed (a new one takes its place): it owns nothing now.
        this.counts.left++;
        this.owned.set(line.m, new Set());
        return;
      case 'commitFailed':
        this.counts.commitFailures++;
        this.clientError(line);
        return;
      case 'error':
        this.counts.errors++;
        this.clientError(line);
        return;
    }
  }

  private takeShare(line: MemberLine): void {
    switch (line.ev) {
      case 'recs':
        for (const [p, o, count] of line.data as Array<[number, number, number]>) {
          this.counts.recs++;
          const k = key(p, o);
          const by = this.accepted.get(k);
          if (by !== undefined)
            this.violation(
              `member ${line.m} was delivered partition ${p} offset ${o} (delivery ${count}) after member ${by}'s acceptance of it was acknowledged`,
              line,
            );
          const counts = this.deliveries.get(k);
          if (counts) {
            this.counts.redelivered++;
            const last = counts[counts.length - 1]!;
            if (count <= last)
              this.violation(
                `partition ${p} offset ${o} was delivered again with delivery count ${count}, not above the ${last} of its previous delivery`,
                line,
              );
            counts.push(count);
          } else this.deliveries.set(k, [count]);
        }
        return;
      case 'acked':
        for (const [p, o] of line.data as Array<[number, number]>) {
          this.counts.acks++;
          const k = key(p, o);
          const by = this.accepted.get(k);
          if (by !== undefined)
            this.violation(
              `member ${line.m}'s acceptance of partition ${p} offset ${o} was acknowledged, as member ${by}'s was before`,
              line,
            );
          this.accepted.set(k, line.m);
        }
        return;
      case 'ackFailed':
        this.counts.ackFailures++;
        this.clientError(line);
        for (const failed of line.data as Array<{ recs: Array<[number, number]> }>)
          for (const [p, o] of failed.recs) this.ackUnknown.add(key(p, o));
        return;
      case 'error':
        this.counts.errors++;
        this.clientError(line);
        return;
    }
  }
}
