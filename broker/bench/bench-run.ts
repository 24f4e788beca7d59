// One `npm run bench`: its scenarios in order, each a step that fills its part of the Results
// (seed-scenario.ts, throughput-scenarios.ts, sweep-scenario.ts, abuse.ts, profile-scenario.ts),
// every broker a fresh child process on its own database in `tmp`.
import * as path from 'node:path';
import { runAbuse } from './abuse';
import { fsyncProbe, machine } from './machine-info';
import { runProfiles } from './profile-scenario';
import type { Results } from './results';
import type { ScenarioContext } from './scenario-context';
import { runSeed } from './seed-scenario';
import { runSweep } from './sweep-scenario';
import { runCeilings, runCodecs, runConsume, runMaxProduce } from './throughput-scenarios';

export interface BenchRunOptions {
  /** --quick: short runs, for trying the harness. */
  quick: boolean;
  /** Without --no-profile: the CPU profiles last. */
  profile: boolean;
  /** The checkout whose commit the machine section reports. */
  repo: string;
}

export class BenchRun implements ScenarioContext {
  readonly r: Partial<Results> = { startedAt: new Date().toISOString(), peakRss: [], profiles: [] };
  readonly quick: boolean;

  constructor(
    readonly tmp: string,
    private readonly opts: BenchRunOptions,
  ) {
    this.quick = opts.quick;
    this.r.machine = machine(tmp, opts.repo);
  }

  async all(): Promise<Results> {
    await runSeed(this);
    await runMaxProduce(this);
    await runConsume(this);
    await runCodecs(this);
    await runCeilings(this);
    await runSweep(this);
    this.r.abuse = await runAbuse(this.tmp, this.quick ? 1 : 3);
    if (this.opts.profile) await runProfiles(this);
    this.r.machine!.fsyncAfter = fsyncProbe(this.tmp);
    return this.r as Results;
  }

  seconds(s: number): number {
    return benchSeconds(this.quick, s);
  }

  db(name: string): string {
    return path.join(this.tmp, `${name}.db`);
  }

  sqliteUrl(name: string): string {
    return `sqlite://${this.db(name)}`;
  }
}

/** A scenario's length: a third with --quick (2 s at least); the report shows the lengths run. */
export const benchSeconds = (quick: boolean, seconds: number) =>
  quick ? Math.max(2, Math.round(seconds / 3)) : seconds;
