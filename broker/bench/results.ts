// What one `npm run bench` measures (bench/last-run.json holds the last run's), shared by the
// harness that fills it and the report that renders it.
import type { AbuseRow } from './abuse';
import type { ProfileSummary } from './cpu-profile';
import type { SweepPoint } from './plot';
import type { ProcSample } from './proc';
import type { CeilingResult } from './sqlite-ceiling';
import type { ProduceSummary } from '../src/perf/producer';
import type { ConsumeSummary } from '../src/perf/consumer';
import type { E2eSummary } from '../src/perf/e2e';

export interface PacedResult {
  mode: 'inline' | 'worker';
  commits: number;
  p50Ms: string;
  p99Ms: string;
  maxMs: string;
  stalledMsOver5: string;
  stalls: number;
  usPerCommit: string;
  processCpuPercent: string;
}

export interface ClientConfig {
  name: string;
  batchSize: number;
  producers: number;
}

export interface MaxRun {
  config: ClientConfig;
  summary: ProduceSummary;
  brokerCpuPercent: number;
  toolCpuPercent: number;
  machineBusyPercent: number;
  ceiling?: CeilingResult;
}

export interface Results {
  machine: Record<string, string>;
  startedAt: string;
  durationS: number;
  idleRss: number;
  idleSample: ProcSample | undefined;
  /** Idle RSS of node + a listening TCP server + better-sqlite3 on a WAL database: a Node broker's floor. */
  floorRss?: number;
  /** `commits`: produce transactions the broker committed in the run (from its stop log). */
  seed: { summary: ProduceSummary; cpuPercent: number; peakRss: number; e2e: E2eSummary; commits?: number };
  /** Every seed run (the median by p99 is `seed`). */
  seedRuns?: { p50Ms: number; p99Ms: number; cpuPercent: number; requests: number; commits?: number }[];
  /** RSS of a bare `node`, measured in the run. */
  bareNodeRss?: number;
  /** The seed rate, shorter, with other settings: the latency/CPU floor and a batching client. */
  seedVariants: { name: string; summary: ProduceSummary; cpuPercent: number }[];
  /** Raw SQLite paced at the seed run's commits/s and bytes per commit. */
  seedStorage: PacedResult[];
  /** A bare Node TCP server answering the seed run's requests/s (bench/loopback-floor.bench.ts). */
  seedNetwork: { requestsPerSec: number; requestBytes: number; serverCpuPercent: number };
  max1k: MaxRun[];
  max100: MaxRun[];
  db1k: { dbBytes: number; payloadBytes: number; wireBytes: number };
  db100: { dbBytes: number; payloadBytes: number; wireBytes: number };
  consume: { fetchSize: number; summary: ConsumeSummary; brokerCpuPercent: number }[];
  codecs: { codec: string; summary: ProduceSummary; noop: ProduceSummary }[];
  memory1k: ProduceSummary;
  memory100: ProduceSummary;
  /** Whole-machine busy % (of 2 vCPUs) during the memory:// runs. */
  memoryBusy: { k1: number; b100: number };
  noop1k: ProduceSummary;
  noop100: ProduceSummary;
  sweep: (SweepPoint & { abandoned: number; cpuPercent: number })[];
  peakRss: { scenario: string; bytes: number; anonBytes: number; fileBytes: number }[];
  profiles: { name: string; summary: ProfileSummary }[];
  /** The side producer's round trips during each abusive pattern (bench/abuse.ts, issue 29). */
  abuse?: AbuseRow[];
}

export function bestIndex(runs: MaxRun[]): number {
  let best = 0;
  runs.forEach((x, i) => {
    if (x.summary.recordsPerSec > runs[best]!.summary.recordsPerSec) best = i;
  });
  return best;
}
