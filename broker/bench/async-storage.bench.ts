// Issue 18's bar for the async Storage interface: the SQLite figures of the harness's produce and
// consume scenarios may not drop beyond the noise of two runs. This runs those scenarios alone
// (same client configs and load as harness.ts, shorter), so a before/after pair takes minutes:
//   max1k    1 KiB records, acks=all, as fast as possible (Kafka defaults; batch 256 KiB, 2 in flight)
//   max100   100 B records, batch 256 KiB, 2 in flight
//   consume  the max1k topic from a restarted broker, fetch size 1 MiB and 8 MiB
//   seed     7,000 x 1 KiB records/s, acks=all: latency p50/p99 and broker CPU
// Run (from broker/): npx tsx bench/async-storage.bench.ts [--main BUILD/cli/main.js] [--max-s 6]
// Without --main it builds src/ into bench/.build first. Prints a JSON line and a table.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConsumeSummary } from '../src/perf/consumer';
import type { ProduceSummary } from '../src/perf/producer';
import { CONFIGS_100, CONFIGS_1K, maxRateArgs, pacedArgs, produceArgs, SEED_RATE } from './load-args';
import { BrokerProcess, buildSources, log, OUT, perf, sleep } from './processes';

const MiB = 1024 * 1024;

function opt(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Row {
  scenario: string;
  recordsPerSec: number;
  mbPerSec: number;
  brokerCpuPercent: number;
  p50Ms?: number;
  p99Ms?: number;
}

async function main(): Promise<void> {
  const mainJs = opt('--main');
  const maxS = Number(opt('--max-s') ?? 6);
  mkdirSync(OUT, { recursive: true });
  if (!mainJs) buildSources();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-async-bench-'));
  const start = (url: string) => BrokerProcess.start(url, mainJs ? { main: mainJs } : {});
  const rows: Row[] = [];
  try {
    const db = `sqlite://${path.join(tmp, 'max1k.db')}`;
    let b = await start(db);
    const max1kConfigs = CONFIGS_1K.slice(0, 2);
    for (const [i, c] of max1kConfigs.entries()) {
      log(`max1k: ${c.name}`);
      const run = await perf<ProduceSummary>(
        'produce',
        produceArgs(b.bootstrap, `max-${i}`, 1024, c, maxRateArgs(maxS)),
      );
      const from = Date.parse(run.summary.startedAt);
      rows.push({
        scenario: `max1k ${c.name}`,
        recordsPerSec: run.summary.recordsPerSec,
        mbPerSec: run.summary.mbPerSec,
        brokerCpuPercent: b.sampler.cpuPercent(from, from + run.summary.elapsedMs),
      });
    }
    await b.stop();

    b = await start(db);
    for (const fetchSize of [MiB, 8 * MiB]) {
      log(`consume: fetch size ${fetchSize / MiB} MiB`);
      const args = [
        '--bootstrap-server',
        b.bootstrap,
        '--topic',
        'max-1',
        '--fetch-size',
        fetchSize,
        '--timeout',
        '10s',
      ];
      const run = await perf<ConsumeSummary>('consume', args);
      const from = Date.parse(run.summary.startedAt);
      rows.push({
        scenario: `consume fetch ${fetchSize / MiB} MiB`,
        recordsPerSec: run.summary.recordsPerSec,
        mbPerSec: run.summary.mbPerSec,
        brokerCpuPercent: b.sampler.cpuPercent(from, from + run.summary.elapsedMs),
      });
    }
    await b.stop();

    b = await start(`sqlite://${path.join(tmp, 'max100.db')}`);
    const c100 = CONFIGS_100[0]!;
    log(`max100: ${c100.name}`);
    const m100 = await perf<ProduceSummary>(
      'produce',
      produceArgs(b.bootstrap, 'max100', 100, c100, maxRateArgs(maxS)),
    );
    const from100 = Date.parse(m100.summary.startedAt);
    rows.push({
      scenario: `max100 ${c100.name}`,
      recordsPerSec: m100.summary.recordsPerSec,
      mbPerSec: m100.summary.mbPerSec,
      brokerCpuPercent: b.sampler.cpuPercent(from100, from100 + m100.summary.elapsedMs),
    });
    await b.stop();

    b = await start(`sqlite://${path.join(tmp, 'seed.db')}`);
    await sleep(1000);
    log('seed: 35,000 x 1 KiB at 7,000 records/s');
    const seed = await perf<ProduceSummary>(
      'produce',
      pacedArgs(b.bootstrap, 'seed', { numRecords: 35_000 }, SEED_RATE),
    );
    const fromSeed = Date.parse(seed.summary.startedAt);
    rows.push({
      scenario: 'seed 7,000 x 1 KiB/s',
      recordsPerSec: seed.summary.recordsPerSec,
      mbPerSec: seed.summary.mbPerSec,
      // From 2 s in: the first seconds of a fresh broker include V8 compiling its hot paths.
      brokerCpuPercent: b.sampler.cpuPercent(fromSeed + 2000, fromSeed + seed.summary.elapsedMs),
      p50Ms: seed.summary.latency.p50Ms,
      p99Ms: seed.summary.latency.p99Ms,
    });
    await b.stop();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), load: os.loadavg(), rows })}\n`);
  process.stdout.write(
    '| scenario | records/s | MB/s | broker CPU % | p50 ms | p99 ms |\n|---|---:|---:|---:|---:|---:|\n',
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.scenario} | ${Math.round(r.recordsPerSec)} | ${r.mbPerSec.toFixed(1)} | ${r.brokerCpuPercent.toFixed(0)} | ${r.p50Ms?.toFixed(1) ?? ''} | ${r.p99Ms?.toFixed(1) ?? ''} |\n`,
    );
}

main().catch((err) => {
  log(`failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
