import { LatencyHistogram, Window } from '../../src/perf/histogram';

describe('LatencyHistogram', () => {
  it('gives percentiles within HDR precision (3 significant digits)', () => {
    const h = new LatencyHistogram();
    for (let ms = 1; ms <= 1000; ms++) h.record(ms);
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.p50Ms).toBeCloseTo(500, -0.5);
    expect(Math.abs(s.p95Ms - 950) / 950).toBeLessThan(0.002);
    expect(Math.abs(s.p99Ms - 990) / 990).toBeLessThan(0.002);
    expect(Math.abs(s.p999Ms - 999) / 999).toBeLessThan(0.002);
    expect(s.avgMs).toBeCloseTo(500.5, 6);
    expect(Math.abs(s.maxMs - 1000) / 1000).toBeLessThan(0.002);
    expect(s.minMs).toBe(1);
  });

  it('keeps microsecond resolution for sub-millisecond latencies', () => {
    const h = new LatencyHistogram();
    h.record(0.25, 99);
    h.record(12.5);
    const s = h.summary();
    expect(s.p50Ms).toBe(0.25);
    expect(s.p99Ms).toBe(0.25);
    expect(s.p999Ms).toBeCloseTo(12.5, 1);
    expect(s.avgMs).toBeCloseTo((0.25 * 99 + 12.5) / 100, 9);
  });

  it('counts a tail: 1 % of records at 100 ms moves p99.9, not p95', () => {
    const h = new LatencyHistogram();
    h.record(1, 990);
    h.record(100, 10);
    expect(h.percentileMs(95)).toBe(1);
    expect(h.percentileMs(99)).toBe(1);
    expect(h.percentileMs(99.9)).toBeCloseTo(100, 0);
  });

  it('treats negative values (clock jitter) as 0 and reports zeros when empty', () => {
    const h = new LatencyHistogram();
    expect(h.summary()).toEqual({ count: 0, avgMs: 0, maxMs: 0, minMs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, p999Ms: 0 });
    h.record(-0.5);
    expect(h.summary().maxMs).toBe(0);
    h.reset();
    expect(h.count).toBe(0);
  });
});

describe('Window', () => {
  it('sums records, bytes and latency for the progress line, and resets', () => {
    const w = new Window(0);
    w.record(2, 3, 300);
    w.record(8, 1, 100);
    expect(w.records).toBe(4);
    expect(w.bytes).toBe(400);
    expect(w.avgMs).toBe(3.5);
    expect(w.maxMs).toBe(8);
    w.reset(10);
    expect([w.records, w.bytes, w.avgMs, w.maxMs, w.startMs]).toEqual([0, 0, 0, 0, 10]);
  });
});
