// The rate and throttle arithmetic of Kafka's Rate / SampledStat / QuotaUtils, checked against
// figures worked out by hand from Kafka's code (clients/.../metrics/stats/Rate.java).
import { recordAndThrottle, SampledRate, throttleTimeMs } from '../../../src/server/quotas/sampled-rate';

const kafkaDefaults = { samples: 11, windowMs: 1000 };

describe('SampledRate', () => {
  it('counts a fresh sensor as samples-1 full windows, so one burst is not read as a huge rate', () => {
    const r = new SampledRate(kafkaDefaults);
    r.record(1000, 0);
    expect(r.windowSizeMs(0)).toBe(10_000);
    expect(r.measure(0)).toBe(100);
  });

  it('spans from the oldest sample once more than samples-1 windows have passed', () => {
    const r = new SampledRate({ samples: 3, windowMs: 1000 });
    r.record(300, 0);
    r.record(300, 1500); // second sample starts at 1500
    expect(r.windowSizeMs(1500)).toBe(2000 + 500); // 1 full window + 1 added to reach samples-1, + 500
    r.record(300, 2600); // third sample
    expect(r.windowSizeMs(2600)).toBe(2600);
    expect(r.measure(2600)).toBeCloseTo(900 / 2.6, 6);
  });

  it('forgets samples with no event for samples x window', () => {
    const r = new SampledRate({ samples: 2, windowMs: 1000 });
    r.record(5000, 0);
    expect(r.measure(1999)).toBeGreaterThan(0);
    expect(r.measure(2000)).toBe(0);
    expect(r.idleSince(2000)).toBe(true);
  });

  it('reuses its slots in a ring (samples + 1 of them)', () => {
    const r = new SampledRate({ samples: 2, windowMs: 100 });
    for (let t = 0; t < 1000; t += 100) r.record(10, t);
    // The ring holds the samples of 700, 800 and 900; 700's last event is 200 ms old, so it is
    // purged: 20 over the 100 ms from 800 (one full window = samples-1, nothing added).
    expect(r.measure(900)).toBeCloseTo(20 / 0.1, 6);
  });
});

describe('throttle time (QuotaUtils.throttleTime)', () => {
  it('is the time the measured rate needs to come back to the bound', () => {
    expect(throttleTimeMs(150, 100, 10_000)).toBe(5000);
    expect(throttleTimeMs(100.04, 100, 1000)).toBe(0); // rounded, as Kafka does
  });

  it('records first, then checks: a value within quota throttles nothing, one over it the excess', () => {
    const r = new SampledRate(kafkaDefaults);
    expect(recordAndThrottle(r, 500, 100, 0)).toBe(0); // 500 / 10 s = 50/s
    // 500 more: 1000 / 10 s = 100/s, exactly the bound: still no throttle.
    expect(recordAndThrottle(r, 500, 100, 0)).toBe(0);
    // 2000 more: 3000 / 10 s = 300/s: (300 - 100) / 100 * 10 s.
    expect(recordAndThrottle(r, 2000, 100, 0)).toBe(20_000);
  });
});
