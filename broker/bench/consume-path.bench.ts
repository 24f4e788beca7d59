// The consume path measured A/B (issue 33), the twin of produce-path.bench.ts: builds (or settings)
// alternate round by round and the figure is the broker's own CPU (utime+stime from /proc) per MB
// consumed, which a busy shared machine moves much less than wall time.
//   catchup  `minnow perf consume --fetch-size 1 MiB` reads a prepared topic from the start (1 KiB
//            records in 16 KiB batches, as kafka-producer-perf-test's defaults write them, the topic
//            the peers' consume scenario reads), --reads times per broker; figure: broker CPU ms per MB
//   tail     a paced producer (1 KiB records at --tail-rate/s) and --tail-consumers live consumers
//            reading what was just written (--from-latest), for --tail-s; figure: broker CPU ms per
//            MB produced (its produce included: the same load for every variant)
// Run (from broker/, after `tsc -p tsconfig.build.json --outDir bench/.build`):
//   npx tsx bench/consume-path.bench.ts [--rounds 3] [--records 300000] [--reads 3] [--only catchup|tail]
//       [--tail-s 10] [--tail-rate 7000] [--tail-consumers 2] [--variant NAME=BUILD_DIR[,ENV=VALUE...]]...
// The topic is written once, by the first variant's broker, and each run starts from a copy of that
// database. Prints one JSON line per measurement and the median of the rounds per variant.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConsumeSummary } from '../src/perf/consumer';
import type { ProduceSummary } from '../src/perf/producer';
import { CONFIGS_1K, pacedArgs, produceArgs } from './load-args';
import { parseVariant, variantsOrCurrent, withEnv } from './build-variants';
import type { Variant } from './build-variants';
import { BrokerProcess, log, OUT, perf, sleep } from './processes';
import { sample } from './proc';

const SCENARIOS = ['catchup', 'tail'] as const;
type Scenario = (typeof SCENARIOS)[number];
const TOPIC = 'consume-path';
const MiB = 1024 * 1024;

function parseArgs(argv: string[]) {
  const opts = {
    rounds: 3,
    records: 300_000,
    reads: 3,
    tailS: 10,
    tailRate: 7000,
    tailConsumers: 2,
    only: '' as '' | Scenario,
    variants: [] as Variant[],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--rounds') opts.rounds = Number(v);
    else if (a === '--records') opts.records = Number(v);
    else if (a === '--reads') opts.reads = Number(v);
    else if (a === '--tail-s') opts.tailS = Number(v);
    else if (a === '--tail-rate') opts.tailRate = Number(v);
    else if (a === '--tail-consumers') opts.tailConsumers = Number(v);
    else if (a === '--only') opts.only = v as Scenario;
    else if (a === '--variant') opts.variants.push(parseVariant(v));
    else throw new Error(`unknown option ${a}`);
  }
  return { ...opts, variants: variantsOrCurrent(opts.variants) };
}

const startBroker = (v: Variant, db: string) =>
  withEnv(v.env, () => BrokerProcess.start(`sqlite://${db}`, { main: v.main }));

/** The broker's utime+stime so far, in seconds. */
function cpuSecondsOf(b: BrokerProcess): number {
  const s = sample(b.pid);
  if (!s) throw new Error(`broker ${b.pid} is gone`);
  return s.cpuSeconds;
}

/** Writes the topic the catch-up reads, with the Kafka producer's defaults (batch 16 KiB, 5 in flight). */
async function prepare(v: Variant, dir: string, records: number): Promise<string> {
  const db = path.join(dir, 'prepared.db');
  const b = await startBroker(v, db);
  log(`writing ${records} records of 1 KiB to ${TOPIC}`);
  await perf<ProduceSummary>(
    'produce',
    produceArgs(b.bootstrap, TOPIC, 1024, CONFIGS_1K[0]!, ['--num-records', records, '--throughput', -1]),
  );
  await b.stop(); // a clean stop checkpoints the WAL into the database file
  return db;
}

function copyDatabase(from: string, to: string): void {
  copyFileSync(from, to);
  for (const suffix of ['-wal', '-shm']) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
}

async function catchup(v: Variant, tmp: string, prepared: string, reads: number) {
  const db = path.join(tmp, `catchup-${Date.now()}.db`);
  copyDatabase(prepared, db);
  const b = await startBroker(v, db);
  let cpuSeconds = 0;
  let bytes = 0;
  let fetchMs = 0;
  try {
    for (let i = 0; i < reads; i++) {
      const before = cpuSecondsOf(b);
      const run = await perf<ConsumeSummary>('consume', [
        '--bootstrap-server',
        b.bootstrap,
        '--topic',
        TOPIC,
        '--fetch-size',
        MiB,
        '--timeout',
        '60s',
      ]);
      cpuSeconds += cpuSecondsOf(b) - before;
      bytes += run.summary.wireBytes;
      fetchMs += run.summary.fetchMs;
    }
  } finally {
    await b.stop();
    rmSync(db, { force: true });
  }
  const mb = bytes / MiB;
  const cpuMsPerMb = (cpuSeconds * 1000) / mb;
  return {
    scenario: 'catchup',
    variant: v.name,
    mb,
    cpuSeconds,
    mbPerSec: mb / (fetchMs / 1000),
    cpuMsPerMb,
    ratio: cpuMsPerMb,
  };
}

async function tail(v: Variant, tmp: string, seconds: number, rate: number, consumers: number) {
  const db = path.join(tmp, `tail-${Date.now()}.db`);
  const b = await startBroker(v, db);
  try {
    // The topic exists before the consumers look for it (the producer's first Metadata creates it).
    await perf<ProduceSummary>('produce', pacedArgs(b.bootstrap, TOPIC, { numRecords: 10 }, 100));
    // Each reader stops at its record count or, on a machine too busy for the producer to keep
    // the pace, 5 s after the last record (exit code 1, its summary still written).
    const readers = Array.from({ length: consumers }, () =>
      perf<ConsumeSummary>(
        'consume',
        [
          '--bootstrap-server',
          b.bootstrap,
          '--topic',
          TOPIC,
          '--from-latest',
          '--num-records',
          Math.floor(rate * seconds * 0.95),
          '--fetch-size',
          MiB,
          '--timeout',
          '5s',
        ],
        [0, 1],
      ),
    );
    await sleep(1500); // the consumers connected and long-polling
    const before = cpuSecondsOf(b);
    const from = Date.now();
    const run = await perf<ProduceSummary>('produce', pacedArgs(b.bootstrap, TOPIC, { durationS: seconds }, rate));
    const cpuSeconds = cpuSecondsOf(b) - before;
    const wallS = (Date.now() - from) / 1000;
    const read = await Promise.all(readers);
    // Per MB produced, not % of a core: on a busy machine the producer may fall behind its pace.
    const cpuMsPerMb = (cpuSeconds * 1000) / (run.summary.bytes / MiB);
    return {
      scenario: 'tail',
      variant: v.name,
      produced: run.summary.records,
      consumed: read.map((r) => r.summary.records),
      cpuPercent: (cpuSeconds / wallS) * 100,
      cpuMsPerMb,
      ratio: cpuMsPerMb,
    };
  } finally {
    await b.stop();
    rmSync(db, { force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-consume-path-'));
  const results: Record<string, { ratio: number }[]> = {};
  try {
    const prepared = opts.only === 'tail' ? '' : await prepare(opts.variants[0]!, tmp, opts.records);
    for (let round = 0; round < opts.rounds; round++) {
      // Alternate the order each round so neither variant always runs first.
      const order = round % 2 === 0 ? opts.variants : [...opts.variants].reverse();
      for (const v of order) {
        for (const scenario of SCENARIOS) {
          if (opts.only && opts.only !== scenario) continue;
          log(`round ${round + 1}: ${scenario}, ${v.name} (load ${os.loadavg()[0]!.toFixed(2)})`);
          const r =
            scenario === 'catchup'
              ? await catchup(v, tmp, prepared, opts.reads)
              : await tail(v, tmp, opts.tailS, opts.tailRate, opts.tailConsumers);
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
      `${key}: median ${median(rs.map((r) => r.ratio)).toFixed(3)} (runs ${rs.map((r) => r.ratio.toFixed(3)).join(' / ')})\n`,
    );
}

main().catch((err) => {
  log(`failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
