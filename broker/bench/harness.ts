// `npm run bench` (repo root): measures minnow against the ceilings of the machine it runs on, in
// one run, and rewrites its section of BENCHMARKS.md plus bench/latency-vs-load.svg.
//
// Every broker is a child process (`node <build>/cli/main.js serve`) on a fresh temp SQLite file,
// measured from /proc (CPU = utime+stime, RSS = VmRSS/VmHWM); the load tool is another child
// process (`minnow perf ... --json`), so neither steals the other's event loop. Both run from a
// fresh `tsc` build of src/ (bench/.build), as the instance runs dist/. This file holds the
// scenarios; processes.ts starts and samples the children, report.ts renders BENCHMARKS.md from
// results.ts's Results.
//
// Last, peers.ts runs the same load against Apache Kafka beside minnow (its own section; needs a JDK
// and Maven, skipped with a note without them).
//
// Flags: --quick (short runs, for trying the harness), --no-profile, --no-write (print only),
// --render-only (rewrite the section and the plot from bench/last-run.json), --no-peers.
import { runAbuse } from './abuse';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { summarizeProfileFile } from './cpu-profile';
import { fmtRate, latencyChart } from './plot';
import { runPeersIfAvailable } from './peers';
import { sample } from './proc';
import {
  BrokerProcess,
  BROKER_DIR,
  buildSources,
  log,
  OUT,
  perf,
  sleep,
  ToolRun,
  waitForQuietMachine,
} from './processes';
import { render, replaceSection } from './report';
import {
  Args,
  Bootstrap,
  CONFIGS_100,
  CONFIGS_1K,
  maxRateArgs,
  medianByP99,
  pacedArgs,
  produceArgs,
  SEED_RATE,
  seedFloorLoad,
} from './load-args';
import { bestIndex, ClientConfig, MaxRun, PacedResult, Results } from './results';
import { prng } from '../src/perf/payload';
import type { CeilingResult } from './sqlite-ceiling';
import type { ProduceSummary } from '../src/perf/producer';
import type { ConsumeSummary } from '../src/perf/consumer';
import type { E2eSummary } from '../src/perf/e2e';

const REPO = path.resolve(BROKER_DIR, '..');
const BENCHMARKS_MD = path.join(REPO, 'BENCHMARKS.md');
const PLOT = path.join(BROKER_DIR, 'bench', 'latency-vs-load.svg');
const RESULTS_JSON = path.join(BROKER_DIR, 'bench', 'last-run.json');
const MiB = 1024 * 1024;
const BARE_NODE_RSS = (() => {
  try {
    return Number(
      execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.memoryUsage().rss))'], {
        encoding: 'utf8',
      }),
    );
  } catch {
    return NaN;
  }
})();

/**
 * Paced runs (seed, its variants) count broker CPU from this long after the load starts: the
 * first seconds of a fresh broker include V8 compiling its hot paths (~1 s of a core), a one-off
 * a long-running broker does not pay again (the linger-5 variant: 19-26 % over its 10 s run, 15 %
 * measured from 8 s to 20 s of a longer one).
 */
const STEADY_AFTER_MS = 3000;

const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const PROFILE = !argv.has('--no-profile');
const WRITE = !argv.has('--no-write');
/** Re-renders BENCHMARKS.md and the plot from bench/last-run.json without measuring. */
const RENDER_ONLY = argv.has('--render-only');
const PEERS = !argv.has('--no-peers');
const T = (seconds: number) => (QUICK ? Math.max(2, Math.round(seconds / 3)) : seconds);

/**
 * The least resident memory any Node.js broker on better-sqlite3 can have here: node, a listening
 * TCP server and one WAL database with a row written, sampled after 3 s idle like the broker.
 */
function nodeBrokerFloorRss(dir: string): number {
  const script = [
    "require('node:net').createServer().listen(0, '127.0.0.1');",
    `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});`,
    `const db = new Database(${JSON.stringify(path.join(dir, 'floor.db'))});`,
    "db.pragma('journal_mode = WAL'); db.exec('CREATE TABLE t (x)'); db.prepare('INSERT INTO t VALUES (1)').run();",
    'setTimeout(() => { process.stdout.write(String(process.memoryUsage().rss)); process.exit(0); }, 3000);',
  ].join('\n');
  try {
    return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  } catch {
    return NaN;
  }
}

function dbBytes(file: string): number {
  return ['', '-wal', '-shm'].reduce((sum, ext) => sum + (existsSync(file + ext) ? statSync(file + ext).size : 0), 0);
}

function ceiling(recordSize: number, batchSize: number, perTxn: number, seconds: number): CeilingResult {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'minnow-ceiling-'));
  try {
    const out = execFileSync(
      process.execPath,
      [
        '-r',
        require.resolve('tsx/cjs'),
        path.join(BROKER_DIR, 'bench', 'sqlite-ceiling.ts'),
        dir,
        String(recordSize),
        String(batchSize),
        String(perTxn),
        String(seconds),
      ],
      {
        cwd: BROKER_DIR,
        encoding: 'utf8',
      },
    );
    return JSON.parse(out.trim().split('\n').pop()!) as CeilingResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** bench/wal-checkpoint.bench.ts: raw SQLite commits paced like the broker's, checkpoints inline and on a worker. */
function pacedStorage(commitsPerSec: number, blobBytes: number, seconds: number): PacedResult[] {
  const out = execFileSync(
    process.execPath,
    [
      '-r',
      require.resolve('tsx/cjs'),
      path.join(BROKER_DIR, 'bench', 'wal-checkpoint.bench.ts'),
      String(commitsPerSec),
      String(blobBytes),
      String(seconds),
    ],
    {
      cwd: BROKER_DIR,
      encoding: 'utf8',
    },
  );
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as PacedResult);
}

/** bench/loopback-floor.bench.ts: a bare Node TCP server answering `requestsPerSec` requests of `requestBytes`. */
function socketFloor(requestsPerSec: number, requestBytes: number, seconds: number): Results['seedNetwork'] {
  const out = execFileSync(
    process.execPath,
    [
      '-r',
      require.resolve('tsx/cjs'),
      path.join(BROKER_DIR, 'bench', 'loopback-floor.bench.ts'),
      String(requestsPerSec),
      String(requestBytes),
      String(seconds),
    ],
    { cwd: BROKER_DIR, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Results['seedNetwork'];
}

const peakOf = (scenario: string, b: BrokerProcess) => {
  const p = b.sampler.peakSample();
  return { scenario, bytes: b.sampler.peakRss(), anonBytes: p?.anonBytes ?? NaN, fileBytes: p?.fileBytes ?? NaN };
};

/**
 * 1 KiB JSON log lines (repeated field names, a few vocabularies, random ids and numbers), for the
 * codec scenario: random A-Z text has no repeats for LZ4 or Snappy to find, real records do.
 */
function jsonLogPayloads(file: string, count = 512, size = 1024): void {
  const rnd = prng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const words = [
    'order',
    'payment',
    'cart',
    'user',
    'session',
    'retry',
    'timeout',
    'ok',
    'created',
    'updated',
    'shipped',
    'warehouse',
    'eu-west-2',
    'us-east-1',
  ];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const rec = {
      ts: new Date(1_767_225_600_000 + i * 137).toISOString(),
      level: pick(['INFO', 'INFO', 'INFO', 'WARN', 'ERROR', 'DEBUG']),
      service: pick(['checkout', 'payments', 'inventory', 'search', 'auth']),
      host: `ip-10-0-${Math.floor(rnd() * 8)}-${Math.floor(rnd() * 250)}`,
      traceId: hex(32),
      spanId: hex(16),
      userId: Math.floor(rnd() * 1e6),
      latencyMs: Math.round(rnd() * 5000) / 10,
      msg: Array.from({ length: 6 }, () => pick(words)).join(' '),
      items: Array.from({ length: 3 }, () => ({
        sku: `SKU-${Math.floor(rnd() * 1e5)}`,
        qty: 1 + Math.floor(rnd() * 4),
        price: Math.round(rnd() * 1e4) / 100,
      })),
      note: '',
    };
    let line = JSON.stringify(rec);
    while (line.length < size) {
      rec.note += `${pick(words)} `;
      line = JSON.stringify(rec);
    }
    lines.push(line.slice(0, size - 2) + '"}');
  }
  writeFileSync(file, lines.join('\n'));
}

// --- scenarios -------------------------------------------------------------------------------

type SeedRun = { summary: ProduceSummary; cpuPercent: number; commits: number | undefined; peak: PeakRss };
type PeakRss = ReturnType<typeof peakOf>;
type SeedVariant = { name: string; url: string | null; extra: Args };

/**
 * One `npm run bench`: each scenario a step that fills its part of the Results, every broker a
 * fresh child process on its own database in `tmp`.
 */
class BenchRun {
  readonly r: Partial<Results> = { startedAt: new Date().toISOString(), peakRss: [], profiles: [] };

  constructor(private readonly tmp: string) {
    this.r.machine = machine(tmp);
  }

  async all(): Promise<Results> {
    await this.seed();
    await this.maxProduce();
    await this.consume();
    await this.codecs();
    await this.ceilings();
    await this.sweep();
    this.r.abuse = await runAbuse(this.tmp, QUICK ? 1 : 3);
    if (PROFILE) await this.profiles();
    this.r.machine!.fsyncAfter = fsyncProbe(this.tmp);
    return this.r as Results;
  }

  private db(name: string): string {
    return path.join(this.tmp, `${name}.db`);
  }

  private sqliteUrl(name: string): string {
    return `sqlite://${this.db(name)}`;
  }

  // (1) idle RSS, then the seed workload, three times on fresh brokers: on a shared VM one run's
  // p99 can be 3x the next one's, so the headline is the median run (by p99) and all are shown.
  private async seed(): Promise<void> {
    const seedRuns: SeedRun[] = [];
    for (let i = 0; i < (QUICK ? 1 : 3); i++) seedRuns.push(await this.seedRun(i));
    this.r.seedRuns = seedRuns.map(({ summary, cpuPercent, commits }) => ({
      p50Ms: summary.latency.p50Ms,
      p99Ms: summary.latency.p99Ms,
      cpuPercent,
      requests: summary.requests,
      commits,
    }));
    const median = medianByP99(seedRuns);
    const e2e = await this.seedEndToEnd();
    const seed = median.summary;
    this.r.seed = {
      summary: seed,
      cpuPercent: median.cpuPercent,
      peakRss: median.peak.bytes,
      e2e,
      commits: median.commits,
    };
    this.r.peakRss!.push(seedRuns.reduce((a, x) => (x.peak.bytes > a.bytes ? x.peak : a), seedRuns[0]!.peak));
    await this.seedVariants();
    this.seedFloors(seed, median.commits);
  }

  private async seedRun(i: number): Promise<SeedRun> {
    log(`seed run ${i + 1}: 200,000 x 1 KiB at 7,000 records/s, acks=all`);
    const b = await BrokerProcess.start(this.sqliteUrl(`seed-${i}`), { logLevel: 'info' });
    await sleep(3000);
    if (i === 0) {
      this.r.idleSample = sample(b.pid);
      this.r.idleRss = this.r.idleSample?.rssBytes ?? NaN;
      this.r.floorRss = nodeBrokerFloorRss(this.tmp);
    }
    const numRecords = QUICK ? 35_000 : 200_000;
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

  private async seedEndToEnd(): Promise<E2eSummary> {
    log('seed: end-to-end latency, one record in flight');
    const eb = await BrokerProcess.start(this.sqliteUrl('e2e'));
    const e2e = await perf<E2eSummary>('e2e', [
      '--bootstrap-server',
      eb.bootstrap,
      '--topic',
      'e2e',
      '--num-records',
      QUICK ? 300 : 2000,
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
  private async seedVariants(): Promise<void> {
    this.r.seedVariants = [];
    const variants: SeedVariant[] = [
      { name: 'the load tool alone (--noop): its own timer and scheduling delay', url: null, extra: [] },
      { name: 'same client, broker on memory://', url: 'memory://', extra: [] },
      {
        name: 'client linger 5 ms (Kafka 4.0 default), SQLite',
        url: this.sqliteUrl('seed-linger'),
        extra: ['--linger-ms', 5],
      },
    ];
    for (const v of variants) {
      log(`seed variant: ${v.name}`);
      this.r.seedVariants.push(v.url === null ? await this.seedAlone(v.name) : await this.seedVariant(v, v.url));
    }
  }

  private seedVariantRecords(): number {
    return QUICK ? 21_000 : 70_000;
  }

  private async seedAlone(name: string): Promise<Results['seedVariants'][number]> {
    const nr = await perf<ProduceSummary>('produce', [
      '--noop',
      '--topic',
      'seed-v',
      '--num-records',
      this.seedVariantRecords(),
      '--record-size',
      1024,
      '--throughput',
      SEED_RATE,
      '--report-interval',
      '1h',
    ]);
    return { name, summary: nr.summary, cpuPercent: NaN };
  }

  private async seedVariant(v: SeedVariant, url: string): Promise<Results['seedVariants'][number]> {
    const vb = await BrokerProcess.start(url);
    const numRecords = this.seedVariantRecords();
    const vr = await perf<ProduceSummary>(
      'produce',
      pacedArgs(vb.bootstrap, 'seed-v', { numRecords }, SEED_RATE, '1h', v.extra),
    );
    const from = Date.parse(vr.summary.startedAt);
    const cpuPercent = vb.sampler.cpuPercent(from + STEADY_AFTER_MS, from + vr.summary.elapsedMs);
    await vb.stop();
    return { name: v.name, summary: vr.summary, cpuPercent };
  }

  private seedFloors(seed: ProduceSummary, commits: number | undefined): void {
    const load = seedFloorLoad(seed, commits);
    log(`raw SQLite at the seed's ${load.commitsPerSec} commits/s of ${load.bytesPerCommit} B`);
    this.r.seedStorage = pacedStorage(load.commitsPerSec, load.bytesPerCommit, T(10));
    log(`socket floor: a bare Node TCP server at ${load.requestsPerSec} requests/s`);
    this.r.seedNetwork = socketFloor(load.requestsPerSec, load.requestBytes, T(8));
  }

  // (2) maximum produce throughput, 1 KiB and 100 B, acks=all; database size after.
  private async maxProduce(): Promise<void> {
    const m1 = await this.maxRuns(1024, CONFIGS_1K, 'max1k');
    this.r.max1k = m1.runs;
    this.r.db1k = m1.db;
    const m100 = await this.maxRuns(100, CONFIGS_100, 'max100');
    this.r.max100 = m100.runs;
    this.r.db100 = m100.db;
  }

  private async maxRuns(
    recordSize: number,
    configs: ClientConfig[],
    dbName: string,
  ): Promise<{ runs: MaxRun[]; db: Results['db1k'] }> {
    const b = await BrokerProcess.start(this.sqliteUrl(dbName));
    const runs: MaxRun[] = [];
    for (const [i, c] of configs.entries()) {
      log(`max produce ${recordSize} B: ${c.name}`);
      const run = await perf<ProduceSummary>(
        'produce',
        produceArgs(b.bootstrap, `max-${i}`, recordSize, c, maxRateArgs(T(8))),
      );
      const from = Date.parse(run.summary.startedAt);
      runs.push({
        config: c,
        summary: run.summary,
        brokerCpuPercent: b.sampler.cpuPercent(from, from + run.summary.elapsedMs),
        toolCpuPercent: run.toolCpuPercent,
        machineBusyPercent: run.machineBusyPercent,
      });
    }
    await b.stop();
    this.r.peakRss!.push(peakOf(`max produce ${recordSize} B`, b));
    const db = {
      dbBytes: dbBytes(this.db(dbName)),
      payloadBytes: runs.reduce((s, x) => s + x.summary.bytes, 0),
      wireBytes: runs.reduce((s, x) => s + x.summary.wireBytes, 0),
    };
    return { runs, db };
  }

  // (3) consume from the warm 1 KiB database (restarted broker, file in the page cache).
  private async consume(): Promise<void> {
    const max1k = this.r.max1k!;
    const best = bestIndex(max1k);
    const b = await BrokerProcess.start(this.sqliteUrl('max1k'));
    this.r.consume = [];
    for (const fetchSize of [MiB, 8 * MiB]) {
      log(`consume: topic max-${best} (${max1k[best]!.summary.records} records), fetch size ${fetchSize / MiB} MiB`);
      const run = await perf<ConsumeSummary>('consume', [
        '--bootstrap-server',
        b.bootstrap,
        '--topic',
        `max-${best}`,
        '--fetch-size',
        fetchSize,
        '--timeout',
        '10s',
      ]);
      process.stderr.write(run.stdout);
      const from = Date.parse(run.summary.startedAt);
      const brokerCpuPercent = b.sampler.cpuPercent(from, from + run.summary.elapsedMs);
      this.r.consume.push({ fetchSize, summary: run.summary, brokerCpuPercent });
    }
    await b.stop();
    this.r.peakRss!.push(peakOf('consume', b));
  }

  // (4) each codec at 1 KiB, with its generator ceiling.
  private async codecs(): Promise<void> {
    const c = CONFIGS_1K[1]!;
    const payloadFile = path.join(this.tmp, 'json-logs.txt');
    jsonLogPayloads(payloadFile);
    const b = await BrokerProcess.start(this.sqliteUrl('codecs'));
    this.r.codecs = [];
    const codecArgs = (bootstrap: Bootstrap, codec: string, seconds: number) =>
      produceArgs(bootstrap, `codec-${codec}`, payloadFile, c, [...maxRateArgs(seconds), '--compression', codec]);
    for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
      log(`codec ${codec}`);
      const run = await perf<ProduceSummary>('produce', codecArgs(b.bootstrap, codec, T(6)));
      const noop = await perf<ProduceSummary>('produce', codecArgs(null, codec, T(3)));
      this.r.codecs.push({ codec, summary: run.summary, noop: noop.summary });
    }
    await b.stop();
    this.r.peakRss!.push(peakOf('codecs', b));
  }

  // (5) ceilings: raw SQLite with the same blobs, the broker on memory://, the tool in --noop.
  private async ceilings(): Promise<void> {
    for (const runs of [this.r.max1k!, this.r.max100!]) {
      for (const run of runs) {
        log(`raw SQLite ceiling: ${run.summary.recordSize} B, ${run.config.name}`);
        run.ceiling = ceiling(run.summary.recordSize, run.config.batchSize, run.config.producers, T(6));
      }
    }
    await this.memoryCeilings();
    await this.generatorCeilings();
  }

  /** The best client configs of the maximum runs, 1 KiB and 100 B. */
  private bestConfigs(): { c1: ClientConfig; c100: ClientConfig } {
    const { max1k, max100 } = this.r;
    return { c1: max1k![bestIndex(max1k!)]!.config, c100: max100![bestIndex(max100!)]!.config };
  }

  private async memoryCeilings(): Promise<void> {
    const { c1, c100 } = this.bestConfigs();
    log('protocol ceiling: broker on memory://');
    const mem = await BrokerProcess.start('memory://');
    const m1k = await perf<ProduceSummary>(
      'produce',
      produceArgs(mem.bootstrap, 'mem-1k', 1024, c1, maxRateArgs(T(6))),
    );
    const m100 = await perf<ProduceSummary>(
      'produce',
      produceArgs(mem.bootstrap, 'mem-100', 100, c100, maxRateArgs(T(6))),
    );
    this.r.memory1k = m1k.summary;
    this.r.memory100 = m100.summary;
    this.r.memoryBusy = { k1: m1k.machineBusyPercent, b100: m100.machineBusyPercent };
    await mem.stop();
  }

  private async generatorCeilings(): Promise<void> {
    const { c1, c100 } = this.bestConfigs();
    log('generator ceiling: --noop');
    const noop = async (size: number, c: ClientConfig) =>
      (await perf<ProduceSummary>('produce', produceArgs(null, 'noop', size, c, maxRateArgs(T(4))))).summary;
    this.r.noop1k = await noop(1024, c1);
    this.r.noop100 = await noop(100, c100);
  }

  // Latency percentiles against offered load (Kafka's default client settings).
  private async sweep(): Promise<void> {
    const b = await BrokerProcess.start(this.sqliteUrl('sweep'));
    this.r.sweep = [];
    // Unrecorded: the first step would otherwise pay for compiling the broker's hot paths.
    await perf<ProduceSummary>('produce', pacedArgs(b.bootstrap, 'sweep-warmup', { durationS: T(3) }, 5000));
    for (const rate of [1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000])
      this.r.sweep.push(await this.sweepPoint(b, rate));
    await b.stop();
    this.r.peakRss!.push(peakOf('latency sweep', b));
  }

  private async sweepPoint(b: BrokerProcess, rate: number): Promise<Results['sweep'][number]> {
    log(`sweep: ${fmtRate(rate)} records/s`);
    const args = pacedArgs(b.bootstrap, `sweep-${rate}`, { durationS: T(6) }, rate, '1h', ['--warmup-records', rate]);
    const run = await perf<ProduceSummary>('produce', args);
    const s = run.summary;
    const from = Date.parse(s.startedAt);
    return {
      offered: rate,
      achieved: s.recordsPerSec,
      p50Ms: s.latency.p50Ms,
      p95Ms: s.latency.p95Ms,
      p99Ms: s.latency.p99Ms,
      p999Ms: s.latency.p999Ms,
      abandoned: s.abandoned,
      cpuPercent: b.sampler.cpuPercent(from + 1000, run.toMs - 300),
    };
  }

  // Where the broker's CPU goes: node --cpu-prof on the seed load and the 1 KiB maximum.
  private async profiles(): Promise<void> {
    const profDir = path.join(OUT, 'profiles');
    rmSync(profDir, { recursive: true, force: true });
    const numRecords = QUICK ? 21_000 : 84_000;
    await this.profile('seed load (7,000 x 1 KiB records/s, 12 s)', path.join(profDir, 'seed'), (b) =>
      perf('produce', pacedArgs(b.bootstrap, 'p', { numRecords }, SEED_RATE)),
    );
    const { c1, c100 } = this.bestConfigs();
    await this.profile(`maximum 1 KiB produce (${c1.name}, 6 s)`, path.join(profDir, 'max1k'), (b) =>
      perf('produce', produceArgs(b.bootstrap, 'p', 1024, c1, maxRateArgs(T(6)))),
    );
    await this.profile(`maximum 100 B produce (${c100.name}, 6 s)`, path.join(profDir, 'max100'), (b) =>
      perf('produce', produceArgs(b.bootstrap, 'p', 100, c100, maxRateArgs(T(6)))),
    );
  }

  private async profile(name: string, dir: string, load: (b: BrokerProcess) => Promise<ToolRun<unknown>>) {
    log(`profile: ${name}`);
    mkdirSync(dir, { recursive: true });
    const spawnedMs = Date.now();
    const b = await BrokerProcess.start(this.sqliteUrl(`prof-${this.r.profiles!.length}`), { cpuProfDir: dir });
    const run = await load(b);
    const stoppingMs = Date.now();
    await b.stop();
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    // Only the load: leave out start-up (module loading, migrations) and shutdown (final checkpoint).
    const window = {
      skipStartMs: run.fromMs - spawnedMs + 300,
      skipEndMs: Date.now() - stoppingMs + (stoppingMs - run.toMs),
    };
    if (file) this.r.profiles!.push({ name, summary: summarizeProfileFile(path.join(dir, file), 12, window) });
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  mkdirSync(OUT, { recursive: true });
  buildSources();
  if (!QUICK) await waitForQuietMachine();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-bench-'));
  let results: Results;
  try {
    results = await new BenchRun(tmp).all();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  results.durationS = (Date.now() - t0) / 1000;
  results.machine.loadAfter = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  results.bareNodeRss = BARE_NODE_RSS;
  const md = render(results, { seconds: T, bareNodeRss: BARE_NODE_RSS });
  process.stdout.write(`${md}\n`);
  if (WRITE && !QUICK) writeOutputs(results, md);
  else log(`done in ${results.durationS.toFixed(0)} s (files not written${QUICK ? ': --quick' : ''})`);
  if (PEERS) await runPeersIfAvailable({ quick: QUICK, write: WRITE });
}

/** BENCHMARKS.md's section, the plot and last-run.json; then the validation microbenchmark's section. */
function writeOutputs(results: Results, md: string): void {
  writeFileSync(RESULTS_JSON, `${JSON.stringify(results, null, 1)}\n`);
  writePlot(results);
  replaceSection(md, BENCHMARKS_MD);
  log(
    `wrote ${path.relative(REPO, BENCHMARKS_MD)}, ${path.relative(REPO, PLOT)} and ${path.relative(REPO, RESULTS_JSON)} in ${results.durationS.toFixed(0)} s`,
  );
  // The produce-validation microbenchmark rewrites its own section (about a minute, single thread).
  execFileSync(process.execPath, ['--import', 'tsx', path.join(BROKER_DIR, 'bench', 'validate.bench.ts')], {
    cwd: BROKER_DIR,
    stdio: 'inherit',
  });
}

function writePlot(results: Results): void {
  writeFileSync(
    PLOT,
    latencyChart(
      results.sweep,
      'minnow: produce latency vs offered load',
      `1 KiB records, acks=all, SQLite, ${results.machine.cpu}, ${results.machine.date}`,
    ),
  );
}

/** Disk state: 100 sequential 8 KiB write+fsync pairs in the temp folder (median and p99 ms). */
function fsyncProbe(dir: string): string {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const page = Buffer.alloc(8192, 7);
  const ms: number[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      writeSync(fd, page);
      fsyncSync(fd);
      ms.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  ms.sort((a, b) => a - b);
  return `8 KiB write+fsync p50 ${ms[50]!.toFixed(2)} ms, p99 ${ms[99]!.toFixed(2)} ms`;
}

function machine(tmp: string): Record<string, string> {
  const cpus = os.cpus();
  let fs = '?';
  try {
    fs = execFileSync('df', ['-T', tmp], { encoding: 'utf8' }).trim().split('\n').pop()!.split(/\s+/)[1] ?? '?';
  } catch {
    // no df
  }
  let commit = '?';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  return {
    date: new Date().toISOString().slice(0, 10),
    cpu: `${cpus[0]?.model.trim() ?? '?'}, ${cpus.length} vCPU`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    disk: `${fs} (${os.tmpdir()})`,
    loadBefore: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
    loadAfter: '',
    fsyncBefore: fsyncProbe(tmp),
    fsyncAfter: '',
    commit,
  };
}

// --- BENCHMARKS.md -----------------------------------------------------------------------------

function renderOnly(): void {
  const results = JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as Results;
  const md = render(results, { seconds: T, bareNodeRss: BARE_NODE_RSS });
  writePlot(results);
  replaceSection(md, BENCHMARKS_MD);
  log(
    `rewrote ${path.relative(REPO, BENCHMARKS_MD)} and ${path.relative(REPO, PLOT)} from ${path.relative(REPO, RESULTS_JSON)}`,
  );
}

(RENDER_ONLY ? Promise.resolve().then(renderOnly) : main()).catch((err) => {
  log(`failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
