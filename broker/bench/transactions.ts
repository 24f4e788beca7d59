// `npm run bench:transactions` (repo root): what transactions cost a producer (issue 16). The same
// produce load four times: idempotent and not transactional (the ceiling of the run), then
// transactional with 1, 10 and 100 batches per transaction (AddPartitionsToTxn, N Produce
// requests, EndTxn commit, which writes the COMMIT marker and the state in one SQLite transaction).
// Two client shapes: one producer (one request in flight, so every transaction round trip is on the
// critical path) and five (five producer ids, or five transactional ids, sharing the broker).
//
// Every run gets a fresh broker child (`node <build>/cli/main.js serve`) on a fresh SQLite file and
// `minnow perf produce --json` as another child, as harness.ts does. Writes the block between
// <!-- transactions:begin --> and <!-- transactions:end --> of BENCHMARKS.md and
// bench/transactions-last-run.json.
//
// Flags: --quick (3 s runs, one round, for trying it), --rounds=N (default 3; each row is the median
// run), --no-write (print only), --render-only (from the JSON),
// --profile (the broker under `node --cpu-prof`; each run's hottest functions printed, not written).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ProduceSummary } from '../src/perf/producer';
import { summarizeProfileFile } from './cpu-profile';
import { BrokerProcess, BROKER_DIR, buildSources, log, OUT, perf, sleep } from './processes';

const REPO = path.resolve(BROKER_DIR, '..');
const BENCHMARKS_MD = path.join(REPO, 'BENCHMARKS.md');
const RESULTS_JSON = path.join(BROKER_DIR, 'bench', 'transactions-last-run.json');
export const BEGIN_MARK = '<!-- transactions:begin -->';
export const END_MARK = '<!-- transactions:end -->';

/** The load: 1 KiB records to one partition, Kafka's batch.size, acks=all, as fast as it goes. */
export const RECORD_SIZE = 1024;
export const BATCH_SIZE = 16384;
export const WARMUP_RECORDS = 1000;
export const TRANSACTIONAL_ID = 'bench-txn';

export interface Scenario {
  label: string;
  /** null: the idempotent, non-transactional ceiling. */
  batchesPerTransaction: number | null;
}
export const SCENARIOS: Scenario[] = [
  { label: 'idempotent, not transactional', batchesPerTransaction: null },
  { label: 'transactional, 1 batch per transaction', batchesPerTransaction: 1 },
  { label: 'transactional, 10 batches per transaction', batchesPerTransaction: 10 },
  { label: 'transactional, 100 batches per transaction', batchesPerTransaction: 100 },
];
export const SHAPES = [
  { label: '1 producer', producers: 1 },
  { label: '5 producers', producers: 5 },
];

/** `minnow perf produce` arguments of one run (without --json, which perf() adds). */
export function produceArgs(
  bootstrap: string,
  topic: string,
  producers: number,
  durationS: number,
  s: Scenario,
): string[] {
  return [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    topic,
    '--record-size',
    String(RECORD_SIZE),
    '--batch-size',
    String(BATCH_SIZE),
    '--producers',
    String(producers),
    '--acks',
    'all',
    '--throughput',
    '-1',
    '--duration',
    `${durationS}s`,
    '--warmup-records',
    String(WARMUP_RECORDS),
    '--report-interval',
    '5s',
    ...(s.batchesPerTransaction === null
      ? ['--idempotent']
      : ['--transactional-id', TRANSACTIONAL_ID, '--transaction-batches', String(s.batchesPerTransaction)]),
  ];
}

export interface Run {
  shape: string;
  /** records/s of every round of this run's scenario (the run shown is their median). */
  rounds?: number[];
  producers: number;
  scenario: Scenario;
  args: string[];
  summary: Pick<
    ProduceSummary,
    | 'records'
    | 'recordsPerSec'
    | 'mbPerSec'
    | 'latency'
    | 'commitLatency'
    | 'errors'
    | 'firstError'
    | 'transactions'
    | 'elapsedMs'
  >;
}

export interface Results {
  date: string;
  commit: string;
  machine: string;
  loadBefore: string;
  loadAfter: string;
  durationS: number;
  totalS: number;
  /** Rounds: every scenario ran this many times, interleaved; each row is the median run. */
  rounds?: number;
  runs: Run[];
}

/** The median run by records/s (the lower middle of an even count), with every round's figure. */
export function medianRun(runs: readonly Run[]): Run {
  const sorted = [...runs].sort((a, b) => a.summary.recordsPerSec - b.summary.recordsPerSec);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, rounds: runs.map((r) => r.summary.recordsPerSec) };
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? '?'}, ${cpus.length} vCPU, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/** The command lines with the run's port and paths replaced by placeholders. */
const shown = (args: string[]) =>
  args.map((a) => (/^127\.0\.0\.1:\d+$/.test(a) ? '127.0.0.1:PORT' : a.replace(/^txn-bench-.*$/, 'TOPIC'))).join(' ');

/** The BENCHMARKS.md block (between the markers, markers excluded). */
export function render(r: Results): string {
  const lines = [
    '## Transactions (`npm run bench:transactions`)',
    '',
    `Generated by \`npm run bench:transactions\` (broker/bench/transactions.ts) on ${r.date}, commit ${r.commit}, in ${Math.round(r.totalS)} s.`,
    `Machine: ${r.machine}; load average ${r.loadBefore} before and ${r.loadAfter} after (other work on the machine moves every figure).`,
    '',
    `The load: ${RECORD_SIZE} B records to one partition, batch.size ${BATCH_SIZE} B (about ${Math.floor(BATCH_SIZE / (RECORD_SIZE + 8))} records a batch),`,
    `acks=all, unlimited rate, ${r.durationS} s per run after ${WARMUP_RECORDS} warm-up records; each run on a fresh broker and a fresh SQLite file.`,
    `${(r.rounds ?? 1) > 1 ? `Every scenario ran ${r.rounds} times, the rounds interleaved so that other work on the machine falls on all of them; each row is the median run (records/s of the rounds in brackets).` : 'One run per scenario.'}`,
    'Each producer has one request in flight; a transactional producer adds the partition (AddPartitionsToTxn) before',
    'its first batch of a transaction and ends it with EndTxn commit (the COMMIT marker and the new state in one SQLite',
    'transaction) after N batches, so both round trips are on its critical path. With 5 producers each has its own',
    "producer id (idempotent) or transactional id (transactional). Latency from each record's intended send time: to its",
    "produce acknowledgement (what kafka-producer-perf-test reports), and to its transaction's commit (EndTxn answered:",
    'when a read_committed consumer can have it; for the idempotent run the two are the same).',
    '',
    '| producers | scenario | records/s | MB/s | to ack p50 / p99 ms | to commit p50 / p99 ms | transactions committed | of the idempotent figure |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const shape of SHAPES) {
    const runs = r.runs.filter((x) => x.shape === shape.label);
    const ceiling = runs.find((x) => x.scenario.batchesPerTransaction === null);
    for (const x of runs) {
      const s = x.summary;
      const txns = s.transactions ? int(s.transactions.committed) : '-';
      // Not transactional: a record is visible once acknowledged.
      const toCommit = s.commitLatency ?? s.latency;
      const ratio = ceiling ? `${((100 * s.recordsPerSec) / ceiling.summary.recordsPerSec).toFixed(0)} %` : '?';
      lines.push(
        `| ${shape.label} | ${x.scenario.label} | ${int(s.recordsPerSec)}${x.rounds && x.rounds.length > 1 ? ` (${x.rounds.map(int).join(', ')})` : ''} | ${f1(s.mbPerSec)} | ${f2(s.latency.p50Ms)} / ${f2(s.latency.p99Ms)} | ${f2(toCommit.p50Ms)} / ${f2(toCommit.p99Ms)} | ${txns} | ${ratio} |`,
      );
    }
  }
  lines.push(
    '',
    'Commands (each against `node broker/bench/.build/cli/main.js serve --listener tcp://127.0.0.1:PORT --storage sqlite://DIR/minnow.db --log-level warn`, a `tsc` build of src/):',
    '',
  );
  for (const x of r.runs) lines.push(`    minnow perf produce ${shown(x.args)} --json FILE`);
  lines.push('', `Reading it: ${reading(r)}`);
  return lines.join('\n');
}

/** One sentence from the figures: what a transaction of 1, 10 and 100 batches costs, per shape. */
function reading(r: Results): string {
  const parts: string[] = [];
  for (const shape of SHAPES) {
    const runs = r.runs.filter((x) => x.shape === shape.label);
    const base = runs.find((x) => x.scenario.batchesPerTransaction === null)?.summary.recordsPerSec;
    if (!base) continue;
    const pcts = runs
      .filter((x) => x.scenario.batchesPerTransaction !== null)
      .map((x) => `${((100 * x.summary.recordsPerSec) / base).toFixed(0)} %`);
    parts.push(
      `with ${shape.label}, transactions of 1, 10 and 100 batches keep ${pcts.join(', ')} of the idempotent throughput`,
    );
  }
  return `${parts.join('; ')}. A transaction adds two round trips (AddPartitionsToTxn, EndTxn) and two SQLite transactions to its batches, so its cost shrinks as it grows, while the latency to commit grows with it (a read_committed consumer waits for the whole transaction).`;
}

/** Replaces the block between the markers (appends it with its markers if they are missing). */
export function replaceBlock(current: string, md: string): string {
  const block = `${BEGIN_MARK}\n${md}\n${END_MARK}`;
  const a = current.indexOf(BEGIN_MARK);
  const b = current.indexOf(END_MARK);
  return a >= 0 && b > a
    ? current.slice(0, a) + block + current.slice(b + END_MARK.length)
    : `${current.trimEnd()}\n\n${block}\n`;
}

async function runOne(
  shape: (typeof SHAPES)[number],
  s: Scenario,
  durationS: number,
  n: number,
  profile: boolean,
): Promise<Run> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'minnow-bench-txn-'));
  const profDir = path.join(dir, 'prof');
  const spawnedMs = Date.now();
  const broker = await BrokerProcess.start(
    `sqlite://${path.join(dir, 'minnow.db')}`,
    profile ? { cpuProfDir: profDir } : {},
  );
  let window = { skipStartMs: 0, skipEndMs: 0 };
  try {
    const topic = `txn-bench-${n}`;
    const args = produceArgs(broker.bootstrap, topic, shape.producers, durationS, s);
    log(`${shape.label}, ${s.label}: ${durationS} s`);
    const run = await perf<ProduceSummary>('produce', args, [0], (line) => log(`  ${line}`));
    const sum = run.summary;
    if (sum.errors > 0) throw new Error(`${s.label}: ${sum.errors} records failed: ${sum.firstError}`);
    if (sum.transactions && sum.transactions.aborted > 0)
      throw new Error(`${s.label}: ${sum.transactions.aborted} transactions aborted`);
    log(
      `  ${int(sum.recordsPerSec)} records/s, ${f1(sum.mbPerSec)} MB/s, p99 ${f2(sum.latency.p99Ms)} ms${
        sum.transactions ? `, ${int(sum.transactions.committed)} transactions committed` : ''
      }`,
    );
    window = { skipStartMs: run.fromMs - spawnedMs + 300, skipEndMs: 0 };
    const { records, recordsPerSec, mbPerSec, latency, commitLatency, errors, firstError, transactions, elapsedMs } =
      sum;
    return {
      shape: shape.label,
      producers: shape.producers,
      scenario: s,
      args,
      summary: {
        records,
        recordsPerSec,
        mbPerSec,
        latency,
        commitLatency: commitLatency ?? null,
        errors,
        firstError,
        transactions,
        elapsedMs,
      },
    };
  } finally {
    const stoppingMs = Date.now();
    await broker.stop();
    if (profile) printProfile(profDir, { ...window, skipEndMs: Date.now() - stoppingMs });
    rmSync(dir, { recursive: true, force: true });
  }
}

function printProfile(dir: string, window: { skipStartMs: number; skipEndMs: number }): void {
  const file = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.cpuprofile')) : undefined;
  if (!file) {
    log('  (no CPU profile written)');
    return;
  }
  const p = summarizeProfileFile(path.join(dir, file), 10, window);
  log(`  broker busy ${f1((100 * p.busyMs) / Math.max(1, p.totalMs))} % of the run; hottest (self time):`);
  for (const h of p.top) log(`    ${f1(h.percent).padStart(5)} %  ${h.name}  ${h.where}`);
}

/** Waits (at most a minute) for the load average to drop below 1.5: 2 vCPUs shared with others. */
async function waitForQuieter(): Promise<void> {
  for (let waited = 0; os.loadavg()[0]! > 1.5 && waited < 60; waited += 10) {
    if (waited === 0) log(`load average ${loadavg()}: waiting up to 1 min for it to drop below 1.5`);
    await sleep(10_000);
  }
}

async function main(argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const profile = argv.includes('--profile');
  const write = !argv.includes('--no-write');
  let results: Results;
  if (argv.includes('--render-only')) {
    results = JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as Results;
  } else {
    const t0 = Date.now();
    const durationS = quick ? 3 : 10;
    const roundsArg = argv.find((a) => a.startsWith('--rounds='));
    const rounds = roundsArg ? Math.max(1, Number(roundsArg.slice('--rounds='.length)) || 1) : quick ? 1 : 3;
    buildSources();
    mkdirSync(OUT, { recursive: true });
    await waitForQuieter();
    const loadBefore = loadavg();
    // Interleaved rounds: a busy spell on the shared machine lands on every scenario alike.
    const all: Run[][] = SHAPES.flatMap(() => SCENARIOS.map(() => []));
    let n = 0;
    for (let round = 0; round < rounds; round++) {
      if (rounds > 1) log(`round ${round + 1} of ${rounds}`);
      for (const [i, shape] of SHAPES.entries())
        for (const [j, s] of SCENARIOS.entries())
          all[i * SCENARIOS.length + j]!.push(await runOne(shape, s, durationS, n++, profile));
    }
    const runs = all.map(medianRun);
    results = {
      date: new Date().toISOString().slice(0, 10),
      commit: gitCommit(),
      machine: machine(),
      loadBefore,
      loadAfter: loadavg(),
      durationS,
      totalS: (Date.now() - t0) / 1000,
      rounds,
      runs,
    };
    // Profiled runs are slower: their figures are not kept.
    if (write && !quick && !profile) writeFileSync(RESULTS_JSON, `${JSON.stringify(results, null, 2)}\n`);
  }
  const md = render(results);
  process.stdout.write(`${md}\n`);
  if (write && !quick && !profile) {
    const current = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, 'utf8') : '# Benchmarks\n';
    writeFileSync(BENCHMARKS_MD, replaceBlock(current, md));
    log(`wrote ${path.relative(REPO, BENCHMARKS_MD)} and ${path.relative(REPO, RESULTS_JSON)}`);
  } else log('--quick, --profile or --no-write: BENCHMARKS.md left as it is');
}

if (require.main === module)
  main(process.argv.slice(2)).catch((err: Error) => {
    log(`failed: ${err.stack ?? err.message}`);
    process.exit(1);
  });
