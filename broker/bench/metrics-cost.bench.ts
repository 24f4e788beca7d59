/**
 * What the metrics endpoint (MINNOW_METRICS_LISTENER, server/metrics) costs.
 *   1. Per request, in process: the counting a connection does per request while the endpoint is
 *      on (requested + answered + stored), best of three rounds as codec.bench.ts does.
 *   2. Per scrape, in process: render() with many groups (the lag is read from storage each scrape).
 *   3. The seed load (7,000 x 1 KiB records/s, acks=all, `minnow perf produce`) against child
 *      brokers built from src/ (as `npm run bench` does), endpoint off and on (scraped every
 *      second, 60 times more often than the CloudWatch agent's default), alternating, each on a
 *      fresh database; broker CPU from /proc (utime+stime) over the steady part of the run. And
 *      the idle broker's CPU with and without the endpoint (prom-client's event-loop monitor).
 * Run: `npx tsx broker/bench/metrics-cost.bench.ts [--quick]` (--quick: one round of shorter runs).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiKey } from '../src/protocol/api-keys';
import { encodeRecordBatch, readBatchHeader } from '../src/protocol/record-batch';
import { BrokerMetrics } from '../src/server/metrics/broker-metrics';
import { openSyncStorage } from '../src/storage/open-storage';
import { promised } from '../src/storage/sync-adapter';
import type { ProduceSummary } from '../src/perf/producer';
import { pacedArgs, SEED_RATE } from './load-args';
import { BrokerProcess, BROKER_DIR, BUILD, freePort, log, MAIN, OUT, perf, sleep } from './processes';
import { bestOpsPerSecond, opsRow } from './ops-rate';

const QUICK = process.argv.includes('--quick');
const RUN_MS = Number(process.env.BENCH_MS ?? 1000);
/** CPU is counted from this long after the load starts (connection set-up, JIT warm-up left out). */
const STEADY_AFTER_MS = 3000;

function bench(what: string, fn: (i: number) => unknown): number {
  const best = bestOpsPerSecond(fn, RUN_MS);
  console.log(opsRow(what, best));
  return 1e9 / best;
}

function perRequest(): void {
  const storage = promised(openSyncStorage('memory://'));
  const m = new BrokerMetrics({ storage, dbPath: undefined, connections: () => 0 }, { defaultMetrics: false });
  // What one seed-load Produce answers (one topic, one partition) and what a consumer's Fetch does.
  const produced = {
    responses: [
      {
        name: 'seed',
        partitionResponses: [
          {
            index: 0,
            errorCode: 0,
            baseOffset: 5n,
            logAppendTimeMs: -1n,
            logStartOffset: 0n,
            recordErrors: [],
            errorMessage: null,
          },
        ],
      },
    ],
    throttleTimeMs: 0,
  };
  const fetched = {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topic: 'seed',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            highWatermark: 10n,
            lastStableOffset: 10n,
            logStartOffset: 0n,
            abortedTransactions: null,
            preferredReadReplica: -1,
            records: Buffer.alloc(16_384),
          },
        ],
      },
    ],
  };
  console.log('| per request, endpoint on | ops/s | cost |');
  console.log('|---|---|---|');
  bench('Produce: requested + answered (error walk) + stored', () => {
    m.requested(ApiKey.Produce);
    m.answered(ApiKey.Produce, produced);
    m.stored(16_384, 16);
  });
  bench('Fetch: requested + answered (error walk + record bytes)', () => {
    m.requested(ApiKey.Fetch);
    m.answered(ApiKey.Fetch, fetched);
  });
  void storage.close();
}

async function perScrape(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'minnow-metrics-bench-'));
  const dbPath = path.join(dir, 'm.db');
  const storage = openSyncStorage(`sqlite://${dbPath}`);
  try {
    const groups = 1000;
    const partitions = 4;
    storage.createTopic('t', partitions, {});
    const data = encodeRecordBatch({ records: [{ value: Buffer.from('x') }] });
    for (let p = 0; p < partitions; p++)
      storage.append(
        [{ topic: 't', partition: p, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false }],
        0,
      );
    for (let g = 0; g < groups; g++) {
      const offsets = Array.from({ length: partitions }, (_, p) => ({
        topic: 't',
        partition: p,
        offset: 0,
        leaderEpoch: -1,
        metadata: null,
      }));
      storage.commitOffsets(`group-${g}`, offsets, 0);
    }
    const m = new BrokerMetrics({ storage: promised(storage), dbPath, connections: () => 0 });
    await m.render(); // warm-up
    const n = QUICK ? 5 : 20;
    const t0 = performance.now();
    let bytes = 0;
    for (let i = 0; i < n; i++) bytes = (await m.render()).length;
    const ms = (performance.now() - t0) / n;
    console.log(
      `\nscrape with ${groups} groups x ${partitions} committed partitions: ${ms.toFixed(1)} ms per render, ${(bytes / 1024).toFixed(0)} KiB of text`,
    );
  } finally {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function scrapeOnce(port: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', () => resolve());
    req.on('timeout', () => req.destroy());
  });
}

interface Run {
  on: boolean;
  idleCpu: number;
  loadCpu: number;
  p99Ms: number;
}

async function seedRun(on: boolean, tmp: string, i: number): Promise<Run> {
  const metricsPort = await freePort();
  const b = await BrokerProcess.start(`sqlite://${path.join(tmp, `seed-${i}-${on ? 'on' : 'off'}.db`)}`, {
    extraArgs: on ? ['--metrics-listener', `127.0.0.1:${metricsPort}`] : [],
  });
  await sleep(2000);
  const idleFrom = Date.now();
  await sleep(QUICK ? 4000 : 10_000);
  const idleCpu = b.sampler.cpuPercent(idleFrom, Date.now());
  const scraper = on ? setInterval(() => void scrapeOnce(metricsPort), 1000) : undefined;
  const numRecords = QUICK ? 35_000 : 105_000; // 5 s / 15 s at the seed rate
  const run = await perf<ProduceSummary>('produce', pacedArgs(b.bootstrap, 'seed', { numRecords }, SEED_RATE));
  clearInterval(scraper);
  const from = Date.parse(run.summary.startedAt);
  const loadCpu = b.sampler.cpuPercent(from + STEADY_AFTER_MS, from + run.summary.elapsedMs);
  await b.stop();
  log(
    `  endpoint ${on ? 'on ' : 'off'}: idle ${idleCpu.toFixed(2)} %, seed ${loadCpu.toFixed(1)} % of a core, p99 ${run.summary.latency.p99Ms} ms`,
  );
  return { on, idleCpu, loadCpu, p99Ms: run.summary.latency.p99Ms };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function seedLoad(): Promise<void> {
  log('building src/ into bench/.build (tsc)');
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD],
    {
      cwd: BROKER_DIR,
      stdio: 'inherit',
    },
  );
  if (!MAIN) throw new Error('no build');
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-metrics-seed-'));
  const runs: Run[] = [];
  try {
    for (let i = 0; i < (QUICK ? 1 : 3); i++) {
      // Alternate which goes first: a shared VM's load drifts over minutes.
      for (const on of i % 2 === 0 ? [false, true] : [true, false]) runs.push(await seedRun(on, tmp, i));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log('\n| seed load, broker CPU (% of one core) | endpoint off | endpoint on, scraped every 1 s |');
  console.log('|---|---|---|');
  const col = (on: boolean, f: (r: Run) => number) =>
    runs
      .filter((r) => r.on === on)
      .map(f)
      .map((x) => x.toFixed(2))
      .join(' / ');
  const med = (on: boolean, f: (r: Run) => number) => median(runs.filter((r) => r.on === on).map(f)).toFixed(2);
  console.log(`| idle, each run | ${col(false, (r) => r.idleCpu)} | ${col(true, (r) => r.idleCpu)} |`);
  console.log(`| idle, median | ${med(false, (r) => r.idleCpu)} | ${med(true, (r) => r.idleCpu)} |`);
  console.log(`| 7,000 x 1 KiB/s, each run | ${col(false, (r) => r.loadCpu)} | ${col(true, (r) => r.loadCpu)} |`);
  console.log(`| 7,000 x 1 KiB/s, median | ${med(false, (r) => r.loadCpu)} | ${med(true, (r) => r.loadCpu)} |`);
  console.log(`| p99 produce latency ms, each run | ${col(false, (r) => r.p99Ms)} | ${col(true, (r) => r.p99Ms)} |`);
}

async function main(): Promise<void> {
  perRequest();
  await perScrape();
  if (!process.argv.includes('--no-load')) await seedLoad();
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
