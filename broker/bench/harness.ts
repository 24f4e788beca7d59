// `npm run bench` (repo root): measures minnow against the ceilings of the machine it runs on, in
// one run, and rewrites its section of BENCHMARKS.md plus bench/latency-vs-load.svg.
//
// Every broker is a child process (`node <build>/cli/main.js serve`) on a fresh temp SQLite file,
// measured from /proc (CPU = utime+stime, RSS = VmRSS/VmHWM); the load tool is another child
// process (`minnow perf ... --json`), so neither steals the other's event loop. Both run from a
// fresh `tsc` build of src/ (bench/.build), as the instance runs dist/. This file reads the flags
// and writes the outputs; bench-run.ts runs the scenarios (seed-scenario.ts,
// throughput-scenarios.ts, sweep-scenario.ts, profile-scenario.ts), processes.ts starts and samples
// the children, report.ts renders BENCHMARKS.md from results.ts's Results.
//
// Last, peers.ts runs the same load against Apache Kafka beside minnow (its own section; needs a JDK
// and Maven, skipped with a note without them).
//
// Flags: --quick (short runs, for trying the harness), --no-profile, --no-write (print only),
// --render-only (rewrite the section and the plot from bench/last-run.json), --no-peers.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BenchRun, benchSeconds } from './bench-run';
import { latencyChart } from './plot';
import { runPeersIfAvailable } from './peers';
import { BROKER_DIR, buildSources, log, OUT, waitForQuietMachine } from './processes';
import { render, replaceSection } from './report';
import type { Results } from './results';

const REPO = path.resolve(BROKER_DIR, '..');
const BENCHMARKS_MD = path.join(REPO, 'BENCHMARKS.md');
const PLOT = path.join(BROKER_DIR, 'bench', 'latency-vs-load.svg');
const RESULTS_JSON = path.join(BROKER_DIR, 'bench', 'last-run.json');
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

const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
const PROFILE = !argv.has('--no-profile');
const WRITE = !argv.has('--no-write');
/** Re-renders BENCHMARKS.md and the plot from bench/last-run.json without measuring. */
const RENDER_ONLY = argv.has('--render-only');
const PEERS = !argv.has('--no-peers');
const T = (seconds: number) => benchSeconds(QUICK, seconds);

async function main(): Promise<void> {
  const t0 = Date.now();
  mkdirSync(OUT, { recursive: true });
  buildSources();
  if (!QUICK) await waitForQuietMachine();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-bench-'));
  let results: Results;
  try {
    results = await new BenchRun(tmp, { quick: QUICK, profile: PROFILE, repo: REPO }).all();
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
