import {
  CAPACITY_DEFAULTS,
  CapacitySearchOptions,
  nextRate,
  RateMeasurement,
  searchBaselineRate,
} from '../../bench/capacity-search';

const options = (o: Partial<CapacitySearchOptions> = {}): CapacitySearchOptions => ({
  ...CAPACITY_DEFAULTS,
  startRate: 7000,
  maxSteps: 6,
  ...o,
});

/** A fake broker: CPU % of a core at a rate, and the highest rate it can take at all. */
const broker =
  (cpuAt: (rate: number) => number, ceiling = Infinity) =>
  async (rate: number): Promise<RateMeasurement> => ({
    brokerCpuPercent: cpuAt(Math.min(rate, ceiling)),
    achievedRate: Math.min(rate, ceiling),
  });

/** The true answer of a monotonic model: the highest rate (to 1 record/s) within 20 %. */
function truth(cpuAt: (rate: number) => number): number {
  let lo = 0;
  let hi = 1_000_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (cpuAt(mid) <= 20) lo = mid;
    else hi = mid;
  }
  return lo;
}

describe('the t3.micro baseline capacity search', () => {
  const models: [string, (r: number) => number][] = [
    ['linear, as minnow at the seed (19 % at 7,000/s)', (r) => 0.5 + r * (18.5 / 7000)],
    ['linear with a large idle share (a JVM)', (r) => 4 + r / 600],
    ['cheaper per record at higher rates (batches fill)', (r) => 1 + 3 * Math.sqrt(r / 100)],
    ['dearer per record at higher rates (saturation)', (r) => 1 + r / 2000 + (r / 9000) ** 3],
    ['far below the start rate', (r) => r / 50],
  ];
  for (const [name, model] of models) {
    it(`finds a passing rate within 5-10 % under the true one, never above it: ${name}`, async () => {
      const res = await searchBaselineRate(broker(model), options());
      const t = truth(model);
      expect(res.rate).toBeLessThanOrEqual(t);
      expect(res.rate).toBeGreaterThanOrEqual(t * 0.9);
      expect(res.steps.length).toBeLessThanOrEqual(6);
      // What it reports is what it measured: a passing step at that rate.
      expect(res.steps.find((s) => s.rate === res.rate)?.pass).toBe(true);
    });
  }

  it('fails a rate the broker could not reach even when its CPU was within the budget', async () => {
    const res = await searchBaselineRate(
      broker((r) => r / 1000, 9000),
      options(),
    );
    expect(res.rate).toBeLessThan(9000 / 0.97);
    expect(res.rate).toBeGreaterThan(7000);
    expect(res.steps.some((s) => !s.pass && s.brokerCpuPercent <= 20)).toBe(true);
  });

  it('reports 0 when no rate down to the minimum passes', async () => {
    const res = await searchBaselineRate(
      broker(() => 50),
      options({ maxSteps: 10 }),
    );
    expect(res.rate).toBe(0);
    expect(Math.min(...res.steps.map((s) => s.rate))).toBe(CAPACITY_DEFAULTS.minRate);
  });

  it('keeps to its step budget (the quick mode runs 2)', async () => {
    const res = await searchBaselineRate(
      broker((r) => r / 1000),
      options({ maxSteps: 2 }),
    );
    expect(res.steps.map((s) => s.rate)).toEqual([7000, 14000]);
    expect(res.rate).toBe(14000);
  });

  it('does not move more than twofold on one noisy window, and never repeats a rate', () => {
    const step = { rate: 7000, brokerCpuPercent: 1, achievedRate: 7000, pass: true };
    expect(nextRate([step], options())).toBe(14000);
    const a = { rate: 10000, brokerCpuPercent: 19, achievedRate: 10000, pass: true };
    const b = { rate: 10400, brokerCpuPercent: 21, achievedRate: 10400, pass: false };
    expect(nextRate([a, b], options())).toBeUndefined(); // bracket within 5 %
  });
});
