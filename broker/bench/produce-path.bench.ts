// The two produce-path ratios of issue 15, measured A/B: builds (or settings) alternate round by
// round, and each figure is a ratio to its own floor or ceiling measured right after it, so the
// other work on a shared 2-vCPU machine moves numerator and denominator together.
//   seed    broker CPU (utime+stime from /proc, from 3 s in) at 7,000 x 1 KiB records/s, acks=all,
//           over its floor at the same requests/s and commits/s: a bare Node TCP server answering
//           the requests (loopback-floor.bench.ts) + the time inside the same commits in raw SQLite
//           (wal-checkpoint.bench.ts, worker mode); target <= 1.2
//   closed  broker CPU µs per request, one 4 KiB request in flight (see closed()); not a target,
//           the A/B figure of per-request work that a busy machine does not move
//   max1k   1 KiB records, batch 256 KiB, 2 in flight, as fast as possible, over raw SQLite storing
//           the same blobs (sqlite-ceiling.ts, 2 batches a transaction); target >= 0.70
// Run (from broker/, after the harness or `tsc -p tsconfig.build.json --outDir bench/.build`):
//   npx tsx bench/produce-path.bench.ts [--rounds 3] [--seed-s 12] [--max-s 6] [--only seed|max1k|closed]
//       [--closed-records N] [--no-floors] [--variant NAME=BUILD_DIR[,ENV=VALUE...]]...
// --no-floors: the seed's figure is then the broker's CPU µs per request instead of the ratio.
// Without --variant: one variant, bench/.build with the environment as it is. Prints one JSON line
// per measurement and a summary table (median of the rounds per variant).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ProduceSummary } from '../src/perf/producer';
import { CONFIGS_1K, maxRateArgs, pacedArgs, produceArgs, SEED_RATE, seedFloorLoad } from './load-args';
import { parseVariant, variantsOrCurrent, withEnv } from './build-variants';
import type { Variant } from './build-variants';
import { BrokerProcess, BROKER_DIR, log, OUT, perf, sleep } from './processes';
import type { PacedResult } from './results';
import type { CeilingResult } from './sqlite-ceiling';

const SCENARIOS = ['seed', 'max1k', 'closed'] as const;
type Scenario = (typeof SCENARIOS)[number];

function parseArgs(argv: string[]) {
  const opts = {
    rounds: 3,
    seedS: 12,
    maxS: 6,
    only: '' as '' | Scenario,
    floors: true,
    closedRecords: 60_000,
    variants: [] as Variant[],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--no-floors') {
      opts.floors = false;
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--rounds') opts.rounds = Number(v);
    else if (a === '--seed-s') opts.seedS = Number(v);
    else if (a === '--max-s') opts.maxS = Number(v);
    else if (a === '--closed-records') opts.closedRecords = Number(v);
    else if (a === '--only') opts.only = v as Scenario;
    else if (a === '--variant') opts.variants.push(parseVariant(v));
    else throw new Error(`unknown option ${a}`);
  }
  return { ...opts, variants: variantsOrCurrent(opts.variants) };
}

function tsxScript(script: string, args: (string | number)[]): string {
  return execFileSync(
    process.execPath,
    ['-r', require.resolve('tsx/cjs'), path.join(BROKER_DIR, 'bench', script), ...args.map(String)],
    { cwd: BROKER_DIR, encoding: 'utf8' },
  );
}

const jsonLines = <T>(out: string): T[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as T);

async function seed(v: Variant, tmp: string, seconds: number, floors: boolean) {
  const b = await withEnv(v.env, () =>
    BrokerProcess.start(`sqlite://${path.join(tmp, `seed-${Date.now()}.db`)}`, { logLevel: 'info', main: v.main }),
  );
  await sleep(1000);
  const run = await perf<ProduceSummary>(
    'produce',
    pacedArgs(b.bootstrap, 'seed', { durationS: seconds }, SEED_RATE, '1h'),
  );
  const from = Date.parse(run.summary.startedAt);
  const cpuPercent = b.sampler.cpuPercent(from + 3000, from + run.summary.elapsedMs);
  await b.stop();
  const commits = b.produceStats?.produceCommits;
  const load = seedFloorLoad(run.summary, commits);
  const own = {
    scenario: 'seed',
    variant: v.name,
    cpuPercent,
    /** Broker CPU per request: what the A/B compares when the floors are left out. */
    cpuUsPerRequest: (cpuPercent * 1e4) / load.requestsPerSec,
    requestsPerSec: load.requestsPerSec,
    commitsPerSec: load.commitsPerSec,
    p99Ms: run.summary.latency.p99Ms,
  };
  if (!floors) return { ...own, ratio: own.cpuUsPerRequest };
  const storage = jsonLines<PacedResult>(
    tsxScript('wal-checkpoint.bench.ts', [load.commitsPerSec, load.bytesPerCommit, 8]),
  ).find((r) => r.mode === 'worker')!;
  const storageFloor = (Number(storage.usPerCommit) * storage.commits) / 8 / 1e4;
  const net = jsonLines<{ serverCpuPercent: number }>(
    tsxScript('loopback-floor.bench.ts', [load.requestsPerSec, load.requestBytes, 8]),
  )[0]!;
  const floor = net.serverCpuPercent + storageFloor;
  return {
    ...own,
    socketFloor: net.serverCpuPercent,
    storageFloor,
    storageProcessCpu: Number(storage.processCpuPercent),
    floor,
    usAboveFloorPerRequest: ((cpuPercent - floor) * 1e4) / load.requestsPerSec,
    ratio: cpuPercent / floor,
  };
}

async function max1k(v: Variant, tmp: string, seconds: number) {
  const c = CONFIGS_1K[1]!;
  const b = await withEnv(v.env, () =>
    BrokerProcess.start(`sqlite://${path.join(tmp, `max-${Date.now()}.db`)}`, { main: v.main }),
  );
  const run = await perf<ProduceSummary>('produce', produceArgs(b.bootstrap, 'max', 1024, c, maxRateArgs(seconds)));
  const from = Date.parse(run.summary.startedAt);
  const brokerCpu = b.sampler.cpuPercent(from, from + run.summary.elapsedMs);
  await b.stop();
  const dir = mkdtempSync(path.join(tmp, 'ceiling-'));
  const ceiling = jsonLines<CeilingResult>(
    tsxScript('sqlite-ceiling.ts', [dir, 1024, c.batchSize, c.producers, seconds]),
  )[0]!;
  rmSync(dir, { recursive: true, force: true });
  const mb = run.summary.bytes / (run.summary.elapsedMs / 1000) / 1048576;
  return {
    scenario: 'max1k',
    variant: v.name,
    mbPerSec: mb,
    brokerCpu,
    toolCpu: run.toolCpuPercent,
    machineBusy: run.machineBusyPercent,
    p99Ms: run.summary.latency.p99Ms,
    ceilingMbPerSec: ceiling.mbPerSec,
    ratio: mb / ceiling.mbPerSec,
  };
}

/**
 * The seed's requests (4 x 1 KiB records) one at a time, as fast as they are answered: every request
 * is its own commit and its own flush whatever the machine's load, so the broker's CPU per request
 * compares builds even on a busy machine (the paced seed run's grouping moves with the load).
 */
async function closed(v: Variant, tmp: string, records: number) {
  const b = await withEnv(v.env, () =>
    BrokerProcess.start(`sqlite://${path.join(tmp, `closed-${Date.now()}.db`)}`, { main: v.main }),
  );
  await sleep(500);
  const c = { name: '4 x 1 KiB a request, 1 in flight', batchSize: 4300, producers: 1 };
  const before = b.sampler.samples.length;
  const run = await perf<ProduceSummary>(
    'produce',
    produceArgs(b.bootstrap, 'closed', 1024, c, ['--num-records', records, '--throughput', -1]),
  );
  await sleep(300); // one more /proc sample after the last answer
  const s = b.sampler.samples.slice(before);
  await b.stop();
  const cpuSeconds = s[s.length - 1]!.cpuSeconds - s[0]!.cpuSeconds;
  const cpuUsPerRequest = (cpuSeconds * 1e6) / run.summary.requests;
  return {
    scenario: 'closed',
    variant: v.name,
    requests: run.summary.requests,
    requestsPerSec: (run.summary.requests * 1000) / run.summary.elapsedMs,
    cpuUsPerRequest,
    ratio: cpuUsPerRequest,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-produce-path-'));
  const results: Record<string, { ratio: number; scenario: string; variant: string }[]> = {};
  try {
    for (let round = 0; round < opts.rounds; round++) {
      // Alternate the order each round so neither variant always runs first.
      const order = round % 2 === 0 ? opts.variants : [...opts.variants].reverse();
      for (const v of order) {
        for (const scenario of SCENARIOS) {
          if (opts.only && opts.only !== scenario) continue;
          log(`round ${round + 1}: ${scenario}, ${v.name} (load ${os.loadavg()[0]!.toFixed(2)})`);
          const r =
            scenario === 'seed'
              ? await seed(v, tmp, opts.seedS, opts.floors)
              : scenario === 'max1k'
                ? await max1k(v, tmp, opts.maxS)
                : await closed(v, tmp, opts.closedRecords);
          process.stdout.write(`${JSON.stringify({ round, load1: os.loadavg()[0], ...r })}\n`);
          (results[`${scenario} ${v.name}`] ??= []).push(r);
        }
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const [key, rs] of Object.entries(results))
    process.stdout.write(
      `${key}: median ratio ${median(rs.map((r) => r.ratio)).toFixed(3)} (runs ${rs.map((r) => r.ratio.toFixed(3)).join(' / ')})\n`,
    );
}

main().catch((err) => {
  log(`failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
