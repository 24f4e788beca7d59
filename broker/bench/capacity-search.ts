// The search behind bench:peers' t3.micro baseline scenario (issue 33, goal 1): the highest paced
// rate whose broker CPU stays within a budget (20 % of one core: a t3.micro earns 12 credits an
// hour, a baseline of 10 % per vCPU, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/burstable-credits-baseline-concepts.html).
// Each step is a whole measured window (60 s in the full bench), so the search spends few of them:
// a first guess from the start rate's CPU per record, then the line through the last two
// measurements, always kept inside the bracket of the highest passing and lowest failing rate
// (bisection when the line points outside it). Pure: broker/test/perf/capacity-search.test.ts.

/** What one paced run at `rate` showed. */
export interface RateMeasurement {
  /** Broker utime+stime over the window, % of one core. */
  brokerCpuPercent: number;
  /** Records/s the load tool reached (below the rate asked: the broker did not keep up). */
  achievedRate: number;
}

export interface CapacityStep extends RateMeasurement {
  rate: number;
  /** Within the CPU budget and the rate reached. */
  pass: boolean;
}

export interface CapacitySearchOptions {
  /** % of one core the broker may use (20: a t3.micro's baseline for a single-threaded broker). */
  budgetPercent: number;
  startRate: number;
  /** Measured windows at most. */
  maxSteps: number;
  /** Stop when the lowest failing rate is within this fraction above the highest passing one. */
  precision: number;
  minRate: number;
  maxRate: number;
}

export const CAPACITY_DEFAULTS: Omit<CapacitySearchOptions, 'startRate' | 'maxSteps'> = {
  budgetPercent: 20,
  precision: 0.05,
  minRate: 500,
  maxRate: 200_000,
};

export interface CapacityResult {
  /** The highest rate that passed; 0 when none did (the lowest rate tried is then an upper bound). */
  rate: number;
  steps: CapacityStep[];
}

/** A run passes when the broker stayed within the budget and the tool reached 97 % of the rate asked. */
export function passes(rate: number, m: RateMeasurement, budgetPercent: number): boolean {
  return m.brokerCpuPercent <= budgetPercent && m.achievedRate >= 0.97 * rate;
}

/** 14,000 / 7,350 / 952: rates to three significant figures, as a person would pick them. */
export function threeFigures(x: number): number {
  const unit = 10 ** Math.max(0, Math.floor(Math.log10(x)) - 2);
  return Math.round(x / unit) * unit;
}

/**
 * The next rate to try after `steps`, or undefined when the bracket is narrow enough or the
 * candidate was already measured.
 */
export function nextRate(steps: CapacityStep[], o: CapacitySearchOptions): number | undefined {
  const passing = steps.filter((s) => s.pass).map((s) => s.rate);
  const failing = steps.filter((s) => !s.pass).map((s) => s.rate);
  const lo = passing.length ? Math.max(...passing) : undefined;
  const hi = failing.length ? Math.min(...failing) : undefined;
  if (lo !== undefined && hi !== undefined && hi <= lo * (1 + o.precision)) return undefined;
  if (hi !== undefined && hi <= o.minRate) return undefined;
  if (lo !== undefined && lo >= o.maxRate) return undefined;
  // Aim a little under the budget: CPU grows a little faster than the rate near saturation.
  const target = o.budgetPercent * 0.97;
  const last = steps[steps.length - 1]!;
  // The line only through points far enough apart that window noise does not make its slope.
  const previous = [...steps].reverse().find((s) => Math.abs(s.rate / last.rate - 1) >= 0.1);
  let guess: number;
  const slope = previous ? (last.brokerCpuPercent - previous.brokerCpuPercent) / (last.rate - previous.rate) : NaN;
  if (Number.isFinite(slope) && slope > 0 && last.achievedRate >= 0.97 * last.rate) {
    guess = last.rate + (target - last.brokerCpuPercent) / slope;
  } else if (last.achievedRate < 0.97 * last.rate) {
    // The broker (or the tool) could not keep up: what it did reach is a ceiling.
    guess = Math.min(last.achievedRate, last.rate) * 0.9;
  } else {
    // One point: CPU taken as proportional to the rate (an idle broker's CPU is near 0).
    guess = last.brokerCpuPercent > 0 ? last.rate * (target / last.brokerCpuPercent) : last.rate * 2;
  }
  // No more than doubling or quartering per step: a noisy first window must not send the search far off.
  guess = Math.min(Math.max(guess, last.rate / 4), last.rate * 2);
  // At least `precision` away from each end of the bracket, so every step narrows it.
  const away = 1 + o.precision;
  if (lo !== undefined) guess = Math.max(guess, lo * away);
  if (hi !== undefined) guess = Math.min(guess, hi / away);
  if (lo !== undefined && hi !== undefined && !(guess > lo && guess < hi)) guess = (lo + hi) / 2;
  const rounded = threeFigures(Math.min(Math.max(guess, o.minRate), o.maxRate));
  return steps.some((s) => s.rate === rounded) ? undefined : rounded;
}

/** Runs `measure` at up to `maxSteps` rates; the highest rate that passed. */
export async function searchBaselineRate(
  measure: (rate: number) => Promise<RateMeasurement>,
  o: CapacitySearchOptions,
  onStep: (s: CapacityStep) => void = () => {},
): Promise<CapacityResult> {
  const steps: CapacityStep[] = [];
  for (let rate: number | undefined = o.startRate; rate !== undefined && steps.length < o.maxSteps;) {
    const m = await measure(rate);
    const step = { rate, ...m, pass: passes(rate, m, o.budgetPercent) };
    steps.push(step);
    onStep(step);
    rate = nextRate(steps, o);
  }
  const passing = steps.filter((s) => s.pass).map((s) => s.rate);
  return { rate: passing.length ? Math.max(...passing) : 0, steps };
}
