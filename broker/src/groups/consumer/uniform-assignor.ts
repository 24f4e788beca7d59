// The `uniform` server-side assignor (Kafka's UniformAssignor, the default): every member gets as
// many partitions as any other that can take them (the counts differ by at most one where members
// subscribe to the same topics), and a member keeps the partitions it already had where that
// balance allows, so a rebalance moves as few partitions as it can.
//
// How: a first pass deals every partition to the eligible member with the fewest (partitions with
// fewest eligible members first), which fixes each member's share; then each member keeps what it
// had up to its share, and the rest go to eligible members still under their share (the fewest
// first). Kafka's implementation differs in its steps (and in tie-breaks) but not in these goals.
import { Assignment, AssignmentBuilder, partitionCount } from './assignment';
import { AssignorMember, PartitionAssignor, sortedMembers, sortedTopics } from './assignor';

interface Slot {
  topicId: string;
  partition: number;
  eligible: AssignorMember[];
}

export const uniformAssignor: PartitionAssignor = {
  name: 'uniform',
  assign(members, topics) {
    const ordered = sortedMembers(members);
    const slots: Slot[] = [];
    for (const t of sortedTopics(topics)) {
      const eligible = ordered.filter((m) => m.subscribedTopicIds.has(t.topicId));
      if (eligible.length === 0) continue;
      for (let p = 0; p < t.partitionCount; p++) slots.push({ topicId: t.topicId, partition: p, eligible });
    }
    // The most constrained partitions first; otherwise topic order, then partition.
    const byConstraint = slots
      .map((s, i) => ({ s, i }))
      .sort((a, b) => a.s.eligible.length - b.s.eligible.length || a.i - b.i)
      .map((x) => x.s);

    // Shares: each partition to the eligible member with the fewest so far; on a tie, the member
    // that holds more now gets it, so the one-more shares fall where partitions already are.
    const held = new Map(ordered.map((m) => [m.memberId, partitionCount(m.currentAssignment)] as const));
    const share = new Map<string, number>(ordered.map((m) => [m.memberId, 0]));
    if (slots.every((s) => s.eligible.length === ordered.length)) {
      // Everyone may take every partition (the usual case): the shares without the scan, O(members).
      const base = Math.floor(slots.length / Math.max(1, ordered.length));
      let extra = slots.length - base * ordered.length;
      const byHeld = [...ordered].sort((a, b) => held.get(b.memberId)! - held.get(a.memberId)!);
      for (const m of byHeld) share.set(m.memberId, base + (extra-- > 0 ? 1 : 0));
    } else {
      for (const s of byConstraint) {
        let best = s.eligible[0]!;
        for (const m of s.eligible) {
          const d = share.get(m.memberId)! - share.get(best.memberId)!;
          if (d < 0 || (d === 0 && held.get(m.memberId)! > held.get(best.memberId)!)) best = m;
        }
        share.set(best.memberId, share.get(best.memberId)! + 1);
      }
    }

    const out = new Map<string, AssignmentBuilder>(ordered.map((m) => [m.memberId, new AssignmentBuilder()]));
    const taken = new Set<string>();
    const keyOf = (topicId: string, p: number) => `${topicId}:${p}`;
    const eligibleFor = new Map(slots.map((s) => [keyOf(s.topicId, s.partition), s] as const));
    // Stickiness: each member keeps its current partitions (still subscribed) up to its share.
    for (const m of ordered) {
      const mine = out.get(m.memberId)!;
      for (const [topicId, ps] of sortedEntries(m.currentAssignment)) {
        for (const p of [...ps].sort((a, b) => a - b)) {
          const k = keyOf(topicId, p);
          const slot = eligibleFor.get(k);
          if (!slot || taken.has(k) || !m.subscribedTopicIds.has(topicId) || mine.size >= share.get(m.memberId)!)
            continue;
          mine.add(topicId, p);
          taken.add(k);
        }
      }
    }
    // The rest: to the eligible member furthest under its share (then with the fewest).
    for (const s of byConstraint) {
      const k = keyOf(s.topicId, s.partition);
      if (taken.has(k)) continue;
      const room = (m: AssignorMember) => share.get(m.memberId)! - out.get(m.memberId)!.size;
      let best = s.eligible[0]!;
      for (const m of s.eligible) {
        if (
          room(m) > room(best) ||
          (room(m) === room(best) && out.get(m.memberId)!.size < out.get(best.memberId)!.size)
        )
          best = m;
      }
      out.get(best.memberId)!.add(s.topicId, s.partition);
      taken.add(k);
    }
    return new Map([...out].map(([id, b]) => [id, b.build()] as const));
  },
};

function sortedEntries(a: Assignment): [string, ReadonlySet<number>][] {
  return [...a.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}
