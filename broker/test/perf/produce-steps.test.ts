// The steps of `minnow perf produce`, each on its own: the rate controller, the counters, the
// partitioner and encoder, the reporter. Fake clocks throughout; no broker.
import { partitionForKey } from '../../src/client/partitioner';
import { readBatchHeader } from '../../src/protocol/record-batch';
import type { PerfIo } from '../../src/perf/io';
import { makePayloads, randomPayloads } from '../../src/perf/payload';
import { ClaimEncoder, ClaimPartitioner } from '../../src/perf/produce-batches';
import { ProduceCounters } from '../../src/perf/produce-counters';
import { ProduceReporter } from '../../src/perf/produce-reporter';
import type { Producer } from '../../src/perf/producer-fleet';
import { RateController, Schedule } from '../../src/perf/rate-limiter';

const paced = (opts: { total?: number; endMs?: number } = {}) =>
  new Schedule({
    ratePerSec: 1000,
    totalRecords: opts.total ?? Infinity,
    startMs: 1000,
    endMs: opts.endMs ?? Infinity,
  });
const unlimited = () => new Schedule({ ratePerSec: -1, totalRecords: 100, startMs: 1000, endMs: Infinity });

describe('RateController', () => {
  const controller = (s: Schedule, durationMs?: number) =>
    new RateController(s, { perBatch: 5, lingerMs: 0, durationMs, drainMs: 200 });

  it('hands out due records, says how long to wait for the next, and stops when the schedule is done', () => {
    const r = controller(paced({ total: 3 }));
    expect(r.next(1000)).toEqual({ claim: { first: 0, count: 1 } });
    expect(r.next(1000)).toEqual({ waitMs: 1 });
    expect(r.next(1002)).toEqual({ claim: { first: 1, count: 2 } });
    expect(r.next(1003)).toBe('stop');
  });

  it('after a --duration run ends, keeps handing out queued records until the drain time is over', () => {
    const r = controller(paced({ endMs: 1010 }), 10);
    expect(r.next(1000)).toEqual({ claim: { first: 0, count: 1 } });
    // 60 ms late: still within 10 ms + 200 ms of drain, the overdue records come in batches.
    expect(r.next(1060)).toEqual({ claim: { first: 1, count: 5 } });
    expect(r.next(1210)).toEqual({ claim: { first: 6, count: 4 } });
    const late = controller(paced({ endMs: 1010 }), 10);
    expect(late.next(1211)).toBe('stop');
  });
});

describe('ProduceCounters', () => {
  it('counts warm-up records in the window only, and measures from the first steady record', () => {
    const s = paced();
    const c = new ProduceCounters(1000, 2);
    const claim = { first: 0, count: 4 };
    expect(s.take(1003, 4, 0)).toEqual({ claim });
    c.answeredAt(1013);
    c.acknowledged({ indexes: [0, 1, 2, 3], bytes: 400 }, claim, s, 1013, 4);
    expect(c.window.records).toBe(4);
    expect(c.window.bytes).toBe(400);
    expect(c.window.maxMs).toBe(13); // record 0, intended at 1000
    expect(c.acked).toBe(4);
    expect(c.records).toBe(2);
    expect(c.bytes).toBe(200);
    expect(c.latency.summary()).toMatchObject({ count: 2, minMs: 10, maxMs: 11 });
    expect(c.service.summary()).toMatchObject({ count: 2, maxMs: 4 });
    expect(c.elapsedMs()).toBe(11); // 1013 - 1002 (record 2's intended time), not 1013 - 1000
  });

  it('gives an unlimited claim one take time, and measures from the start without warm-up', () => {
    const s = unlimited();
    const c = new ProduceCounters(1000, 0);
    const r = s.take(1005, 10, 0);
    if (!('claim' in r)) throw new Error(`expected a claim, got ${JSON.stringify(r)}`);
    c.answeredAt(1025);
    c.acknowledged({ indexes: [0, 1, 2], bytes: 30 }, r.claim, s, 1025, 20);
    expect(c.latency.summary()).toMatchObject({ count: 3, minMs: 20, maxMs: 20 });
    expect(c.elapsedMs()).toBe(25);
  });

  it('keeps the first error, and counts failed records in the window as errors', () => {
    const c = new ProduceCounters(0, 0);
    c.failed(3, 'produce to t/0: NOT_LEADER_OR_FOLLOWER');
    c.failed(2, 'produce to t/1: REQUEST_TIMED_OUT');
    expect(c).toMatchObject({ errors: 5, firstError: 'produce to t/0: NOT_LEADER_OR_FOLLOWER', records: 0 });
    expect(c.window.errors).toBe(5);
  });

  it("counts a --duration run's unsent records as abandoned, in the histogram at the time they waited", () => {
    const s = paced({ endMs: 1005 }); // records 0..4
    s.take(1001, 2, 0); // records 0, 1 taken
    const c = new ProduceCounters(1000, 3);
    c.abandonUnsent(s, 1100);
    expect(c.abandoned).toBe(3);
    // Records 3 and 4 are past the warm-up: 1100 - 1003 and 1100 - 1004.
    expect(c.latency.summary()).toMatchObject({ count: 2, minMs: 96, maxMs: 97 });
  });

  it('never reports a zero span', () => {
    expect(new ProduceCounters(1000, 0).elapsedMs()).toBe(1e-3);
  });
});

describe('ClaimPartitioner and ClaimEncoder', () => {
  const unkeyed = makePayloads(randomPayloads(10, 4), 0);
  const keyed = makePayloads(randomPayloads(10, 4), 7);

  it('sends an unkeyed claim whole to one partition, rotating per claim', () => {
    const p = new ClaimPartitioner(unkeyed, false, 3);
    const parts = [0, 1, 2, 3].map(() => [...p.split({ first: 10, count: 2 })]);
    expect(parts).toEqual([[[0, [10, 11]]], [[1, [10, 11]]], [[2, [10, 11]]], [[0, [10, 11]]]]);
  });

  it("places keyed records by the key's murmur2 hash, as Kafka's default partitioner", () => {
    const p = new ClaimPartitioner(keyed, true, 4);
    const split = p.split({ first: 0, count: 14 });
    for (const [partition, indexes] of split)
      for (const i of indexes) expect(partitionForKey(keyed.key(i)!, 4)).toBe(partition);
    expect([...split.values()].flat().sort((a, b) => a - b)).toEqual([...Array(14).keys()]);
  });

  it('encodes one batch per partition with the idempotent producer id and per-partition sequences', () => {
    const targets = [0, 1].map((partition) => ({ partition, leader: 1 }));
    const encoder = new ClaimEncoder(unkeyed, targets, { keys: 0, compression: 0, idempotent: true });
    const producer: Producer = {
      conn: null,
      connsByLeader: new Map(),
      producerId: 42n,
      producerEpoch: 3,
      sequences: new Map([[1, 2 ** 31 - 1]]),
      sent: 0,
    };
    const first = encoder.encode(producer, { first: 0, count: 3 }, 5000n);
    const second = encoder.encode(producer, { first: 3, count: 2 }, 5001n);
    expect(first.map((b) => [b.target.partition, b.indexes, b.bytes])).toEqual([[0, [0, 1, 2], 30]]);
    expect(second.map((b) => [b.target.partition, b.indexes, b.bytes])).toEqual([[1, [3, 4], 20]]);
    const d = readBatchHeader(second[0]!.batch);
    expect(d).toMatchObject({ producerId: 42n, producerEpoch: 3, baseSequence: 2 ** 31 - 1 });
    // Sequences wrap at 2^31, as Kafka's do.
    expect([...producer.sequences]).toEqual([
      [1, 1],
      [0, 3],
    ]);
  });
});

describe('ProduceReporter', () => {
  function fakeIo(isTTY = false) {
    const lines: string[] = [];
    const bars: string[] = [];
    let now = 0;
    const io: PerfIo = {
      out: (l) => lines.push(l),
      err: (l) => lines.push(`err: ${l}`),
      bar: (t) => bars.push(t),
      isTTY,
      now: () => now,
      wallNow: () => 1_700_000_000_000 + now,
    };
    return { io, lines, bars, at: (ms: number) => (now = ms) };
  }
  const opts = { numRecords: 100, reportIntervalMs: 1000, graphite: undefined, graphitePrefix: 'minnow' };

  it("prints the window's progress line and starts a new window", () => {
    const f = fakeIo();
    const c = new ProduceCounters(0, 0);
    const r = new ProduceReporter(opts, f.io, c, 0);
    c.window.record(10, 50, 50 * 1024);
    c.window.record(30, 50, 50 * 1024);
    f.at(500);
    r.report();
    expect(f.lines).toEqual([
      '100 records sent, 200.0 records/sec (0.20 MB/sec), 20.0 ms avg latency, 30.0 ms max latency.',
    ]);
    expect(c.window).toMatchObject({ startMs: 500, records: 0, bytes: 0 });
    expect(f.bars).toEqual([]); // not a TTY
  });

  it('prints a last partial window at the end only if it saw records or errors, and clears the bar', () => {
    const quiet = fakeIo(true);
    new ProduceReporter(opts, quiet.io, new ProduceCounters(0, 0), 0).finish();
    expect(quiet.lines).toEqual([]);
    expect(quiet.bars).toEqual(['']);

    const f = fakeIo(true);
    const c = new ProduceCounters(0, 0);
    const r = new ProduceReporter(opts, f.io, c, 0);
    c.failed(4, 'x');
    c.acked = 50;
    f.at(1000);
    r.finish();
    expect(f.lines).toEqual(['0 records sent, 0.0 records/sec (0.00 MB/sec), 0.0 ms avg latency, 0.0 ms max latency.']);
    expect(f.bars[f.bars.length - 2]).toMatch(/^\[=+> *\] {2}50% 50\/100 records, 50 rec\/s, eta 1s$/);
    expect(f.bars[f.bars.length - 1]).toBe('');
  });
});
