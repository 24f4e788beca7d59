import { Schedule } from '../../src/perf/rate-limiter';

describe('Schedule (rate-limited)', () => {
  // 1000 records/s: record i is intended at 1000 + i ms.
  const make = (total = Infinity, endMs = Infinity) =>
    new Schedule({ ratePerSec: 1000, totalRecords: total, startMs: 1000, endMs });

  it('intends record i at start + i / rate, whatever happens', () => {
    const s = make();
    expect(s.intendedMs(0)).toBe(1000);
    expect(s.intendedMs(7)).toBe(1007);
    expect(s.released(999)).toBe(0);
    expect(s.released(1000)).toBe(1);
    expect(s.released(1007)).toBe(8);
  });

  it('hands out due records at once with linger 0, and says when the next one is due', () => {
    const s = make(10);
    expect(s.take(1000, 5, 0)).toEqual({ claim: { first: 0, count: 1 } });
    expect(s.take(1000, 5, 0)).toEqual({ waitUntilMs: 1001 });
    expect(s.take(1003.5, 5, 0)).toEqual({ claim: { first: 1, count: 3 } });
  });

  it('keeps intended times when the producer is late: no coordinated omission', () => {
    const s = make();
    s.take(1000, 100, 0); // record 0
    // The broker stalls for 50 ms; the producer comes back at 1050 and takes what piled up.
    const r = s.take(1050, 100, 0);
    expect(r).toEqual({ claim: { first: 1, count: 50 } });
    if (!('claim' in r)) throw new Error('expected a claim');
    // Each record's latency counts from its own intended time, not from 1050.
    const ackAt = 1051;
    const latencies = Array.from({ length: r.claim.count }, (_, k) => ackAt - s.intendedOf(r.claim, r.claim.first + k));
    expect(latencies[0]).toBe(50); // record 1, intended at 1001
    expect(latencies[49]).toBe(1); // record 50, intended at 1050
  });

  it('caps a claim at maxRecords and leaves the rest for the next producer', () => {
    const s = make();
    expect(s.take(1099, 30, 0)).toEqual({ claim: { first: 0, count: 30 } });
    expect(s.take(1099, 30, 0)).toEqual({ claim: { first: 30, count: 30 } });
    expect(s.take(1099, 30, 0)).toEqual({ claim: { first: 60, count: 30 } });
    expect(s.take(1099, 30, 0)).toEqual({ claim: { first: 90, count: 10 } });
  });

  it('lingers until the batch is full or the first record waited lingerMs', () => {
    const s = make();
    expect(s.take(1002, 10, 5)).toEqual({ waitUntilMs: 1005 }); // 3 due; first waited 2 of 5 ms
    expect(s.take(1005, 10, 5)).toEqual({ claim: { first: 0, count: 6 } });
    expect(s.take(1005, 3, 5)).toEqual({ waitUntilMs: 1008 }); // full batch of 3 at record 8 (1008) before linger (1011)
    expect(s.take(1008, 3, 5)).toEqual({ claim: { first: 6, count: 3 } });
  });

  it('stops after totalRecords, sending the tail without waiting for linger', () => {
    const s = make(3);
    expect(s.take(1002, 10, 100)).toEqual({ claim: { first: 0, count: 3 } });
    expect(s.take(5000, 10, 0)).toEqual({ done: true });
  });

  it('with a duration, schedules only records intended before the end', () => {
    const s = make(Infinity, 1010);
    expect(s.capacity).toBe(10);
    expect(s.take(2000, 100, 0)).toEqual({ claim: { first: 0, count: 10 } });
    expect(s.take(2000, 100, 0)).toEqual({ done: true });
  });

  it('rejects a zero rate', () =>
    expect(() => new Schedule({ ratePerSec: 0, totalRecords: 1, startMs: 0, endMs: Infinity })).toThrow(RangeError));
});

describe('Schedule (unlimited)', () => {
  it('gives full batches on demand, intended when taken', () => {
    const s = new Schedule({ ratePerSec: -1, totalRecords: 25, startMs: 0, endMs: Infinity });
    const r = s.take(42, 10, 0);
    expect(r).toEqual({ claim: { first: 0, count: 10 } });
    if (!('claim' in r)) throw new Error('expected a claim');
    expect(s.intendedOf(r.claim, 5)).toBe(42);
    s.release(r.claim);
    expect(s.take(50, 10, 0)).toEqual({ claim: { first: 10, count: 10 } });
    expect(s.take(60, 10, 0)).toEqual({ claim: { first: 20, count: 5 } });
    expect(s.take(70, 10, 0)).toEqual({ done: true });
  });

  it('ends at endMs with a duration', () => {
    const s = new Schedule({ ratePerSec: -1, totalRecords: Infinity, startMs: 0, endMs: 100 });
    expect('claim' in s.take(99, 10, 0)).toBe(true);
    expect(s.take(100, 10, 0)).toEqual({ done: true });
  });
});
