// `npm run bench:compaction` (repo root): the compaction soak of issue 17 (docs/compaction.md).
// 1,000 keys updated continuously at a fixed rate against a broker child process on a fresh SQLite
// file; the database size (file + WAL, allocated blocks) is sampled every few seconds and should
// level off near the live keys' size instead of growing with what was written. At the same time
// the same load goes to a second broker process on its own fresh file with a delete-policy topic
// (no compactor work): both see the same machine (other work on a shared 2-vCPU box moves latency
// by 10x from minute to minute, so phases run one after the other compared the machine, not the
// compactor), and produce p50/p99 with and without compaction running come from the same minutes;
// their ratio is the figure. p99 is also given per 30 s window, next to the size curves.
// Rewrites the `<!-- compaction:begin -->` block of BENCHMARKS.md.
//
// The broker is `node bench/.build/cli/main.js serve` (a fresh tsc build, as the instance runs
// dist/); this process only produces (one connection, acks=all, open loop at the given rate,
// latency from send to response). Progress goes to stderr every 10 s.
//
// Flags: --minutes M (default 3),
// --rate N (produce requests/s, default 100), --records N (records per request, default 10),
// --value-bytes N (default 512), --keys N (default 1000), --backoff-ms N (LOG_CLEANER_BACKOFF_MS,
// default 2000), --no-write (print the block only), --render-only (rewrite the block from
// compaction-last-run.json without measuring), --wait-quiet (first wait up to 3 min for the
// load average to drop below 1.5).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { KafkaClient } from '../src/client/client';
import { encodeRecordBatch, RecordInput } from '../src/protocol/record-batch';
import { LatencyHistogram, LatencySummary } from '../src/perf/histogram';
import { diskUsage } from './disk-usage';
import { BrokerProcess, buildSources, log, sleep, waitForQuietMachine } from './processes';

const REPO = path.resolve(__dirname, '..', '..');
const BENCHMARKS_MD = path.join(REPO, 'BENCHMARKS.md');
const LAST_RUN = path.join(__dirname, 'compaction-last-run.json');
const BEGIN = '<!-- compaction:begin -->';
const END = '<!-- compaction:end -->';
const SAMPLE_EVERY_MS = 5_000;
const PROGRESS_EVERY_MS = 10_000;
const MAX_IN_FLIGHT = 32;
const MiB = 1024 * 1024;
const WINDOW_S = 30;

interface Opts {
  minutes: number;
  rate: number;
  records: number;
  valueBytes: number;
  keys: number;
  backoffMs: number;
  write: boolean;
  waitQuiet: boolean;
  renderOnly: boolean;
}

interface Phase {
  name: string;
  seconds: number;
  requests: number;
  records: number;
  errors: number;
  latency: LatencySummary;
  /** [seconds since the phase began, database bytes (file + WAL, allocated), of which the WAL] */
  sizes: [number, number, number][];
  /** p99 (ms) of each WINDOW_S window, in order. */
  windowP99: number[];
  /** Bytes of record payload (keys + values) sent. */
  payloadBytes: number;
}

function options(): Opts {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      rate: { type: 'string' },
      records: { type: 'string' },
      'value-bytes': { type: 'string' },
      keys: { type: 'string' },
      'backoff-ms': { type: 'string' },
      'no-write': { type: 'boolean' },
      'render-only': { type: 'boolean' },
      'wait-quiet': { type: 'boolean' },
    },
  });
  const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
  return {
    minutes: num(values.minutes, 3),
    rate: num(values.rate, 100),
    records: num(values.records, 10),
    valueBytes: num(values['value-bytes'], 512),
    keys: num(values.keys, 1000),
    backoffMs: num(values['backoff-ms'], 2000),
    write: !values['no-write'],
    waitQuiet: !!values['wait-quiet'],
    renderOnly: !!values['render-only'],
  };
}

const dbBytes = (file: string) => diskUsage(file, `${file}-wal`, `${file}-shm`).allocatedBytes;
const sizeNow = (t: number, file: string): [number, number, number] => [
  t,
  dbBytes(file),
  diskUsage(`${file}-wal`).allocatedBytes,
];

/** One phase: a fresh broker and file, a topic with `configs`, the load for `seconds`. */
async function runPhase(name: string, seconds: number, o: Opts, configs: Record<string, string>): Promise<Phase> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'minnow-soak-'));
  const file = path.join(dir, 'soak.db');
  // How long the broker's event loop was held, and with how much CPU (loop-turns-preload.js).
  const loopOut = `${file}.loop.json`;
  const broker = await BrokerProcess.start(`sqlite://${file}`, {
    nodeArgs: ['--require', path.join(__dirname, 'loop-turns-preload.js')],
    env: { MINNOW_LOOP_TURNS_OUT: loopOut },
  });
  const client = new KafkaClient(`127.0.0.1:${broker.port}`);
  const random = randomBytes(64 * 1024);
  const hist = new LatencyHistogram();
  const window = new LatencyHistogram();
  const windowP99: number[] = [];
  const sizes: [number, number, number][] = [];
  let [requests, records, errors, inFlight, payloadBytes, nextKey] = [0, 0, 0, 0, 0, 0];
  let firstError = '';
  try {
    await client.createTopic('soak', 1, configs);
    await client.topic('soak'); // learns the leader's address
    process.kill(broker.pid, 'SIGUSR2'); // the loop figures leave start-up out
    const t0 = Date.now();
    const elapsedS = () => (Date.now() - t0) / 1000;
    sizes.push(sizeNow(0, file));
    let windowEnd = t0 + WINDOW_S * 1000;
    let lastSample = t0;
    let lastProgress = t0;
    const intervalMs = 1000 / o.rate;
    let due = t0;
    while (Date.now() - t0 < seconds * 1000) {
      const now = Date.now();
      if (now - lastSample >= SAMPLE_EVERY_MS) {
        lastSample = now;
        sizes.push(sizeNow(Math.round(elapsedS()), file));
      }
      if (now >= windowEnd) {
        windowEnd += WINDOW_S * 1000;
        windowP99.push(window.percentileMs(99));
        window.reset();
      }
      if (now - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = now;
        log(
          `${name}: ${elapsedS().toFixed(0)}/${seconds} s, ${records} records, p99 ${hist.percentileMs(99).toFixed(2)} ms, ` +
            `database ${(dbBytes(file) / MiB).toFixed(1)} MiB, ${errors} errors`,
        );
      }
      if (now < due) {
        await sleep(Math.min(due - now, 5));
        continue;
      }
      due += intervalMs;
      if (inFlight >= MAX_IN_FLIGHT) {
        await sleep(1);
        continue;
      }
      const batch: RecordInput[] = [];
      for (let i = 0; i < o.records; i++) {
        const key = Buffer.from(`key-${nextKey}`);
        nextKey = (nextKey + 1) % o.keys;
        const at = (requests * 131 + i * 17) % (random.length - o.valueBytes);
        batch.push({ key, value: random.subarray(at, at + o.valueBytes) });
        payloadBytes += key.length + o.valueBytes;
      }
      const sentAt = performance.now();
      inFlight++;
      requests++;
      client
        .produce('soak', 0, 1, encodeRecordBatch({ records: batch, baseTimestamp: BigInt(Date.now()) }), -1)
        .then(
          () => {
            const took = performance.now() - sentAt;
            hist.record(took);
            window.record(took);
            records += o.records;
          },
          (err: Error) => {
            errors++;
            firstError ||= err.message;
          },
        )
        .finally(() => inFlight--);
    }
    for (let i = 0; inFlight > 0 && i < 3000; i++) await sleep(10);
    sizes.push(sizeNow(Math.round(elapsedS()), file));
    if (window.count > 0) windowP99.push(window.percentileMs(99));
    if (firstError) log(`${name}: first produce error: ${firstError}`);
    return { name, seconds, requests, records, errors, latency: hist.summary(), sizes, windowP99, payloadBytes };
  } finally {
    client.close();
    await broker.stop();
    if (existsSync(loopOut)) log(`${name}: broker event loop ${readFileSync(loopOut, 'utf8')}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

const mib = (b: number) => (b / MiB).toFixed(1);
const ms = (x: number) => x.toFixed(2);

function render(o: Opts, del: Phase, cmp: Phase, when: string, load: number): string {
  const live = o.keys * (o.valueBytes + `key-${o.keys - 1}`.length);
  const ratio = cmp.latency.p99Ms / del.latency.p99Ms;
  const end = (p: Phase) => p.sizes[p.sizes.length - 1]!;
  const row = (label: string, p: Phase) =>
    `| ${label} | ${p.seconds} | ${p.records} | ${p.errors} | ${ms(p.latency.p50Ms)} | ${ms(p.latency.p99Ms)} | ` +
    `${ms(p.latency.p999Ms)} | ${ms(p.latency.maxMs)} | ${mib(p.payloadBytes)} | ${mib(end(p)[1])} (${mib(end(p)[2])}) |`;
  const curve: string[] = [];
  const at = (p: Phase, t: number) => p.sizes.filter(([s]) => s <= t).pop();
  const p99 = (p: Phase, t: number) =>
    t > 0 && p.windowP99[t / WINDOW_S - 1] !== undefined ? ms(p.windowP99[t / WINDOW_S - 1]!) : '';
  for (let t = 0; t <= cmp.seconds; t += WINDOW_S) {
    const c = at(cmp, t);
    const d = at(del, t);
    if (c && d) curve.push(`| ${t} | ${mib(c[1])} | ${mib(c[2])} | ${mib(d[1])} | ${p99(cmp, t)} | ${p99(del, t)} |`);
  }
  const half = at(cmp, cmp.seconds / 2)![1];
  const last = end(cmp)[1];
  return [
    BEGIN,
    `<!-- generated by \`npm run bench:compaction\` (broker/bench/compaction-soak.ts); edits here are overwritten -->`,
    '',
    `### Compaction soak (issue 17)`,
    '',
    `${when}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average at start ` +
      `${load.toFixed(2)} (shared machine: other work moves every figure). Two broker processes at ` +
      `once, each on its own fresh SQLite file, each sent the same load: ${o.keys} keys updated round-robin, ` +
      `${o.rate} produce requests/s of ${o.records} records (${o.valueBytes}-byte values, uncompressed, ` +
      `acks=all, one connection, open loop), so every key is rewritten ` +
      `${((o.rate * o.records) / o.keys).toFixed(1)} times a second. One topic is compacted ` +
      `(min.compaction.lag.ms=0, Kafka's min.cleanable.dirty.ratio 0.5, LOG_CLEANER_BACKOFF_MS=${o.backoffMs}), ` +
      `the other has the delete policy (no compactor work). Live data (latest record per key, payload ` +
      `only) ≈ ${mib(live)} MiB.`,
    '',
    '| topic | seconds | records | errors | p50 ms | p99 ms | p99.9 ms | max ms | payload sent MiB | database at end MiB (of which WAL) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('delete policy (no compaction)', del),
    row('compact (compactor running)', cmp),
    '',
    `**p99 with compaction running / without: ${ratio.toFixed(2)}×** (same minutes, same machine). ` +
      `Over the second half of the run the compacted database ` +
      `${last - half < 0.05 * MiB ? 'did not grow' : `grew ${mib(last - half)} MiB`} ` +
      `(${mib(half)} → ${mib(last)} MiB, most of it the WAL, which checkpoints bound) while ` +
      `${mib(cmp.payloadBytes / 2)} MiB were written; the delete-policy file grew ` +
      `${mib(end(del)[1] - at(del, del.seconds / 2)![1])} MiB.`,
    '',
    `| seconds | database MiB, compact | of which WAL | database MiB, delete | p99 ms compact (${WINDOW_S} s before) | p99 ms delete |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...curve,
    END,
  ].join('\n');
}

function writeBlock(block: string): void {
  const current = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, 'utf8') : '# Benchmarks\n';
  const a = current.indexOf(BEGIN);
  const b = current.indexOf(END);
  const next =
    a >= 0 && b > a
      ? current.slice(0, a) + block + current.slice(b + END.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(BENCHMARKS_MD, next);
}

async function main(): Promise<void> {
  const o = options();
  if (o.renderOnly) {
    const last = JSON.parse(readFileSync(LAST_RUN, 'utf8')) as {
      when: string;
      loadAverage: number;
      options: Opts;
      phases: [Phase, Phase];
    };
    writeBlock(render(last.options, last.phases[0], last.phases[1], last.when, last.loadAverage));
    log(`rewrote ${path.relative(REPO, BENCHMARKS_MD)} from ${path.relative(REPO, LAST_RUN)}`);
    return;
  }
  buildSources();
  if (o.waitQuiet) await waitForQuietMachine();
  process.env.LOG_CLEANER_BACKOFF_MS = String(o.backoffMs); // inherited by the broker processes
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  const loadAverage = os.loadavg()[0]!;
  const seconds = Math.round(o.minutes * 60);
  log(`${o.minutes} min at ${o.rate} requests/s to each of two brokers (compact, delete)`);
  const [del, cmp] = await Promise.all([
    runPhase('delete', seconds, o, {}),
    runPhase('compact', seconds, o, { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '0' }),
  ]);
  const block = render(o, del, cmp, when, loadAverage);
  process.stdout.write(block + '\n');
  if (o.write) {
    writeBlock(block);
    writeFileSync(LAST_RUN, JSON.stringify({ when, loadAverage, options: o, phases: [del, cmp] }, null, 2) + '\n');
    log(`wrote ${path.relative(REPO, BENCHMARKS_MD)} and ${path.relative(REPO, LAST_RUN)}`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
