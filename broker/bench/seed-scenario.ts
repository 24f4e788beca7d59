// The bench's first scenario: the seed workload (7,000 x 1 KiB records/s, acks=all) three times
// on fresh brokers, its end-to-end latency, its variants (no broker, memory://, linger 5 ms) and
// the floors at its rate (raw SQLite, a bare TCP server).
import { sample } from './proc';
import { BrokerProcess, log, perf, sleep } from './processes';
import { Args, medianByP99, pacedArgs, SEED_RATE, seedFloorLoad } from './load-args';
import { nodeBrokerFloorRss, pacedStorage, socketFloor } from './floor-probes';
import type { Results } from './results';
import { peakOf, STEADY_AFTER_MS } from './scenario-context';
import type { PeakRss, ScenarioContext } from './scenario-context';
import type { ProduceSummary } from '../src/perf/producer';
import type { E2eSummary } from '../src/perf/e2e';

type SeedRun = { summary: ProduceSummary; cpuPercent: number; commits: number | undefined; peak: PeakRss };
type SeedVariant = { name: string; url: string | null; extra: Args };

// (1) idle RSS, then the seed workload, three times on fresh brokers: on a shared VM one run's
// p99 can be 3x the next one's, so the headline is the median run (by p99) and all are shown.
export async function runSeed(ctx: ScenarioContext): Promise<void> {
  const seedRuns: SeedRun[] = [];
  for (let i = 0; i < (ctx.quick ? 1 : 3); i++) seedRuns.push(await seedRun(ctx, i));
  ctx.r.seedRuns = seedRuns.map(({ summary, cpuPercent, commits }) => ({
    p50Ms: summary.latency.p50Ms,
    p99Ms: summary.latency.p99Ms,
    cpuPercent,
    requests: summary.requests,
    commits,
  }));
  const median = medianByP99(seedRuns);
  const e2e = await seedEndToEnd(ctx);
  const seed = median.summary;
  ctx.r.seed = {
    summary: seed,
    cpuPercent: median.cpuPercent,
    peakRss: median.peak.bytes,
    e2e,
    commits: median.commits,
  };
  ctx.r.peakRss!.push(seedRuns.reduce((a, x) => (x.peak.bytes > a.bytes ? x.peak : a), seedRuns[0]!.peak));
  await seedVariants(ctx);
  seedFloors(ctx, seed, median.commits);
}

async function seedRun(ctx: ScenarioContext, i: number): Promise<SeedRun> {
  log(`seed run ${i + 1}: 200,000 x 1 KiB at 7,000 records/s, acks=all`);
  const b = await BrokerProcess.start(ctx.sqliteUrl(`seed-${i}`), { logLevel: 'info' });
  await sleep(3000);
  if (i === 0) {
    ctx.r.idleSample = sample(b.pid);
    ctx.r.idleRss = ctx.r.idleSample?.rssBytes ?? NaN;
    ctx.r.floorRss = nodeBrokerFloorRss(ctx.tmp);
  }
  const numRecords = ctx.quick ? 35_000 : 200_000;
  const run = await perf<ProduceSummary>('produce', pacedArgs(b.bootstrap, 'seed', { numRecords }, SEED_RATE, '5s'));
  process.stderr.write(run.stdout);
  const from = Date.parse(run.summary.startedAt);
  const cpuPercent = b.sampler.cpuPercent(from + STEADY_AFTER_MS, from + run.summary.elapsedMs);
  await b.stop();
  return {
    summary: run.summary,
    cpuPercent,
    commits: b.produceStats?.produceCommits,
    peak: peakOf('seed workload', b),
  };
}

async function seedEndToEnd(ctx: ScenarioContext): Promise<E2eSummary> {
  log('seed: end-to-end latency, one record in flight');
  const eb = await BrokerProcess.start(ctx.sqliteUrl('e2e'));
  const e2e = await perf<E2eSummary>('e2e', [
    '--bootstrap-server',
    eb.bootstrap,
    '--topic',
    'e2e',
    '--num-records',
    ctx.quick ? 300 : 2000,
    '--record-size',
    1024,
    '--warmup-records',
    100,
  ]);
  await eb.stop();
  return e2e.summary;
}

// Floors at the seed rate: the same load on memory:// (network + protocol + the tool itself),
// a client that batches (linger 5 ms, Kafka 4.0's default), and raw SQLite doing the seed
// run's commits without a network.
async function seedVariants(ctx: ScenarioContext): Promise<void> {
  ctx.r.seedVariants = [];
  const variants: SeedVariant[] = [
    { name: 'the load tool alone (--noop): its own timer and scheduling delay', url: null, extra: [] },
    { name: 'same client, broker on memory://', url: 'memory://', extra: [] },
    {
      name: 'client linger 5 ms (Kafka 4.0 default), SQLite',
      url: ctx.sqliteUrl('seed-linger'),
      extra: ['--linger-ms', 5],
    },
  ];
  for (const v of variants) {
    log(`seed variant: ${v.name}`);
    ctx.r.seedVariants.push(v.url === null ? await seedAlone(ctx, v.name) : await seedVariant(ctx, v, v.url));
  }
}

function seedVariantRecords(ctx: ScenarioContext): number {
  return ctx.quick ? 21_000 : 70_000;
}

async function seedAlone(ctx: ScenarioContext, name: string): Promise<Results['seedVariants'][number]> {
  const nr = await perf<ProduceSummary>('produce', [
    '--noop',
    '--topic',
    'seed-v',
    '--num-records',
    seedVariantRecords(ctx),
    '--record-size',
    1024,
    '--throughput',
    SEED_RATE,
    '--report-interval',
    '1h',
  ]);
  return { name, summary: nr.summary, cpuPercent: NaN };
}

async function seedVariant(
  ctx: ScenarioContext,
  v: SeedVariant,
  url: string,
): Promise<Results['seedVariants'][number]> {
  const vb = await BrokerProcess.start(url);
  const numRecords = seedVariantRecords(ctx);
  const vr = await perf<ProduceSummary>(
    'produce',
    pacedArgs(vb.bootstrap, 'seed-v', { numRecords }, SEED_RATE, '1h', v.extra),
  );
  const from = Date.parse(vr.summary.startedAt);
  const cpuPercent = vb.sampler.cpuPercent(from + STEADY_AFTER_MS, from + vr.summary.elapsedMs);
  await vb.stop();
  return { name: v.name, summary: vr.summary, cpuPercent };
}

function seedFloors(ctx: ScenarioContext, seed: ProduceSummary, commits: number | undefined): void {
  const load = seedFloorLoad(seed, commits);
  log(`raw SQLite at the seed's ${load.commitsPerSec} commits/s of ${load.bytesPerCommit} B`);
  ctx.r.seedStorage = pacedStorage(load.commitsPerSec, load.bytesPerCommit, ctx.seconds(10));
  log(`socket floor: a bare Node TCP server at ${load.requestsPerSec} requests/s`);
  ctx.r.seedNetwork = socketFloor(load.requestsPerSec, load.requestBytes, ctx.seconds(8));
}
