// What each scenario of `npm run bench` (seed-scenario.ts, throughput-scenarios.ts,
// sweep-scenario.ts, profile-scenario.ts) is handed by the run (bench-run.ts): the Results it
// fills, its temp folder, the --quick choice; and what the scenarios share.
import type { BrokerProcess } from './processes';
import type { Results } from './results';

export interface ScenarioContext {
  /** The run's results so far: each scenario fills its part. */
  readonly r: Partial<Results>;
  /** The run's temp folder: every broker's database goes here. */
  readonly tmp: string;
  /** --quick: short runs, for trying the harness. */
  readonly quick: boolean;
  /** A scenario's length in seconds, shorter with --quick. */
  seconds(s: number): number;
  /** The database file of the broker called `name`, in `tmp`. */
  db(name: string): string;
  /** sqlite:// and db(name). */
  sqliteUrl(name: string): string;
}

/**
 * Paced runs (seed, its variants) count broker CPU from this long after the load starts: the
 * first seconds of a fresh broker include V8 compiling its hot paths (~1 s of a core), a one-off
 * a long-running broker does not pay again (the linger-5 variant: 19-26 % over its 10 s run, 15 %
 * measured from 8 s to 20 s of a longer one).
 */
export const STEADY_AFTER_MS = 3000;

export const MiB = 1024 * 1024;

export const peakOf = (scenario: string, b: BrokerProcess) => {
  const p = b.sampler.peakSample();
  return { scenario, bytes: b.sampler.peakRss(), anonBytes: p?.anonBytes ?? NaN, fileBytes: p?.fileBytes ?? NaN };
};
export type PeakRss = ReturnType<typeof peakOf>;
