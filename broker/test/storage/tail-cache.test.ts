// The tail cache on its own (src/storage/tail-cache.ts): which reads it can answer, its byte budget
// across partitions, what dropping leaves, and that reads get copies of what was appended.
import { PartitionTail, TailCache } from '../../src/storage/tail-cache';

const blob = (n: number, fill = 1) => Buffer.alloc(n, fill);

/** Appends batches of `records` offsets each, `bytes` long, continuing the partition's run. */
function appendRun(cache: TailCache, tail: PartitionTail, from: number, count: number, bytes = 100, records = 2) {
  for (let i = 0; i < count; i++) {
    const base = from + i * records;
    cache.append(tail, base, base + records - 1, blob(bytes));
  }
}

/** The cache's copyOut, given the bytes of the batches as Records.read counts them. */
const copyOut = (cache: TailCache, t: PartitionTail, from: number, to: number) =>
  cache.copyOut(
    t,
    from,
    to,
    t.batches.slice(from, to).reduce((n, b) => n + b.length, 0),
  );

const liveBytes = (tails: PartitionTail[]) =>
  tails.reduce((n, t) => n + t.batches.slice(t.head).reduce((m, b) => m + b.length, 0), 0);

describe('TailCache', () => {
  it('answers from the batch holding the offset on, and not before its run', () => {
    const cache = new TailCache(1 << 20);
    const t = new PartitionTail();
    appendRun(cache, t, 10, 3); // [10-11] [12-13] [14-15]
    expect(cache.indexFor(t, 9)).toBe(-1);
    expect(cache.indexFor(t, 10)).toBe(0);
    expect(cache.indexFor(t, 13)).toBe(1);
    expect(cache.indexFor(t, 15)).toBe(2);
    expect(cache.indexFor(t, 16)).toBe(-1); // the high watermark: nothing cached there
    expect(cache.indexFor(new PartitionTail(), 0)).toBe(-1);
  });

  it('starts a run over when an append does not continue it', () => {
    const cache = new TailCache(1 << 20);
    const t = new PartitionTail();
    appendRun(cache, t, 0, 3);
    cache.append(t, 20, 21, blob(100));
    expect(cache.indexFor(t, 0)).toBe(-1);
    expect(cache.indexFor(t, 20)).toBe(t.head);
    expect(cache.bytes).toBe(100);
  });

  it('stays within its budget across partitions, dropping the oldest batches first', () => {
    const cache = new TailCache(1000);
    const a = new PartitionTail();
    const b = new PartitionTail();
    appendRun(cache, a, 0, 5); // 500 bytes
    appendRun(cache, b, 0, 5); // 1000
    appendRun(cache, b, 10, 3); // a's first three go
    expect(cache.bytes).toBe(1000);
    expect(liveBytes([a, b])).toBe(1000);
    expect(cache.indexFor(a, 5)).toBe(-1);
    expect(a.batches[cache.indexFor(a, 6)]!.baseOffset).toBe(6);
    expect(cache.indexFor(b, 0)).toBe(0);
  });

  it('dropping frees the bytes; their room in the ring is written over in ring order, live batches after it', () => {
    const cache = new TailCache(1000);
    const a = new PartitionTail();
    const b = new PartitionTail();
    appendRun(cache, a, 0, 5); // ring [0, 500)
    appendRun(cache, b, 0, 3); // [500, 800)
    cache.dropBelow(a, 4); // [0-1] [2-3]
    expect(cache.bytes).toBe(600);
    expect(cache.indexFor(a, 3)).toBe(-1);
    cache.clear(b);
    expect(cache.bytes).toBe(300);
    // 900 bytes: two fit at the ring's end, then the writes go over a's dropped room and its three live batches.
    appendRun(cache, b, 6, 9);
    expect(a.size).toBe(0);
    expect(b.size).toBe(9);
    expect(cache.bytes).toBe(900);
    appendRun(cache, a, 100, 1); // into b's dropped room: nothing live goes
    expect(b.size).toBe(9);
    expect(cache.bytes).toBe(1000);
  });

  it('keeps a copy: the request it came in may change or go after the append', () => {
    const cache = new TailCache(1 << 20);
    const t = new PartitionTail();
    const request = Buffer.alloc(16_000, 7);
    const batch = request.subarray(80);
    cache.append(t, 0, 0, batch);
    request.fill(9);
    const [read] = copyOut(cache, t, 0, 1);
    expect(read!.equals(Buffer.alloc(batch.length, 7))).toBe(true);
    expect(cache.bytes).toBe(batch.length);
  });

  it("a read's copy stays as it was when later appends write over the ring", () => {
    const cache = new TailCache(1000);
    const t = new PartitionTail();
    cache.append(t, 0, 0, blob(400, 1));
    cache.append(t, 1, 1, blob(400, 2));
    const read = copyOut(cache, t, 0, 2);
    cache.append(t, 2, 2, blob(400, 3)); // wraps: over batch 0
    cache.append(t, 3, 3, blob(400, 4)); // over batch 1
    expect(read.map((b) => [b.length, b[0], b[399]])).toEqual([
      [400, 1, 1],
      [400, 2, 2],
    ]);
    expect(cache.indexFor(t, 1)).toBe(-1);
    const now = copyOut(cache, t, t.head, t.batches.length);
    expect(now.map((b) => b[0])).toEqual([3, 4]);
  });

  it('caches nothing with a budget of 0, nor a batch larger than the budget', () => {
    const none = new TailCache(0);
    const t = new PartitionTail();
    appendRun(none, t, 0, 3);
    expect(none.bytes).toBe(0);
    expect(none.indexFor(t, 0)).toBe(-1);
    const small = new TailCache(150);
    const u = new PartitionTail();
    appendRun(small, u, 0, 1);
    small.append(u, 2, 3, blob(151));
    expect(small.bytes).toBe(0);
    expect(small.indexFor(u, 0)).toBe(-1);
  });

  it('keeps its accounting under many partitions, drops and starts over (random operations)', () => {
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n) as number;
    const cache = new TailCache(5000);
    const tails = Array.from({ length: 6 }, () => new PartitionTail());
    const next = tails.map(() => 0);
    let over = 0;
    for (let step = 0; step < 20_000; step++) {
      const i = rand(tails.length);
      const t = tails[i]!;
      const op = rand(20);
      if (op === 0) cache.clear(t);
      else if (op === 1) cache.dropBelow(t, next[i]! - rand(10));
      else {
        const records = 1 + rand(3);
        cache.append(t, next[i]!, next[i]! + records - 1, blob(50 + rand(400), next[i]! % 251));
        next[i]! += records;
      }
      if (cache.bytes > 5000) over++;
    }
    expect(over).toBe(0);
    expect(cache.bytes).toBe(liveBytes(tails));
    for (const [i, t] of tails.entries()) {
      // Each run is contiguous and ends at its partition's next offset.
      const live = t.batches.slice(t.head);
      for (let k = 1; k < live.length; k++) expect(live[k]!.baseOffset).toBe(live[k - 1]!.lastOffset + 1);
      // And each batch reads back as it was appended (no other batch wrote over its room).
      const read = copyOut(cache, t, t.head, t.batches.length);
      for (const [k, b] of live.entries()) expect(read[k]!.equals(blob(b.length, b.baseOffset % 251))).toBe(true);
      if (live.length > 0) expect(live[live.length - 1]!.lastOffset + 1).toBe(next[i]);
    }
  });
});
