// `npm run bench:peers` (also the last part of `npm run bench`): minnow beside Apache Kafka on the
// same machine in one run. Each scenario starts each broker fresh (minnow on a new SQLite file;
// Kafka 4.x KRaft with its default 1G heap, then with the 256m a t3.micro leaves it, on a new log
// dir) and drives it with Kafka's own kafka-producer-perf-test / kafka-consumer-perf-test and with
// `minnow perf`. Broker CPU and RSS come from /proc of the broker process (the JVM for Kafka).
// Writes BENCHMARKS.md's bench:peers block, bench/peers-last-run.json and, where the README has
// the bench:peers-summary markers, its summary table.
//
// Flags: --quick (small record counts, to try the harness; writes nothing), --no-write,
// --kafka-version V (default: the kafka-oracle's), --render-only (from bench/peers-last-run.json).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_KAFKA_VERSION, probeMetadata, resolveKafkaJars } from '../tools/kafka-oracle/kafka';
import { bytesPerPayloadByte, diskUsage } from './disk-usage';
import { KAFKA_DEFAULT_HEAP, KAFKA_T3_MICRO_HEAP, kafkaSettingsText, runKafkaTool, startKafkaPeer } from './kafka-peer';
import { consumerPerfRow, producerPerfTotal } from './kafka-perf-output';
import { CONFIGS_1K, pacedArgs, produceArgs, SEED_RATE } from './load-args';
import {
  PeerId,
  PeerInfo,
  PeerScenario,
  PeerScenarioResult,
  PeersResults,
  renderPeers,
  renderReadmeSummary,
  replaceMarkedBlock,
  ScenarioId,
  ToolFigures,
} from './peers-report';
import { ProcSample, sample, Sampler } from './proc';
import {
  BrokerProcess,
  BROKER_DIR,
  buildSources,
  forgetChild,
  killOnExit,
  log,
  OUT,
  perf,
  sleep,
  ToolRun,
} from './processes';
import type { ConsumeSummary } from '../src/perf/consumer';
import type { ProduceSummary } from '../src/perf/producer';

const REPO = path.resolve(BROKER_DIR, '..');
const BENCHMARKS_MD = path.join(REPO, 'BENCHMARKS.md');
const README_MD = path.join(REPO, 'README.md');
const RESULTS_JSON = path.join(BROKER_DIR, 'bench', 'peers-last-run.json');
const MiB = 1024 * 1024;
/** As the main harness: paced runs count broker CPU from this long after the load starts (JIT warm-up). */
const STEADY_AFTER_MS = 3000;

export interface PeersOptions {
  quick: boolean;
  write: boolean;
  kafkaVersion: string;
}

/** Record counts per scenario: the seed's is the article's; the maximum runs' give each tool ~5-20 s. */
export function recordCounts(quick: boolean): { seed: number; max1k: number; max100: number } {
  return quick
    ? { seed: 35_000, max1k: 50_000, max100: 200_000 }
    : { seed: 200_000, max1k: 500_000, max100: 2_000_000 };
}

const PEERS: PeerInfo[] = [
  { id: 'minnow', label: 'minnow' },
  { id: 'kafka-default', label: `Kafka, ${KAFKA_DEFAULT_HEAP} heap`, heap: KAFKA_DEFAULT_HEAP },
  { id: 'kafka-small', label: `Kafka, ${KAFKA_T3_MICRO_HEAP} heap`, heap: KAFKA_T3_MICRO_HEAP },
];

export const MINNOW_SETTINGS =
  '`minnow serve --listener tcp://127.0.0.1:<port> --storage sqlite://<fresh file>` with every other setting at its default: SQLite WAL with synchronous=NORMAL, produce requests of the same millisecond share one transaction (MINNOW_COMMIT_INTERVAL_MS=1), and a produce is acknowledged once its transaction has committed to the WAL, with no fsync per commit (the WAL is fsynced at checkpoints): safe against a broker crash, not a power loss.';

/** A broker under test: where to send load, whom to sample, what to du. */
export interface RunningPeer {
  bootstrap: string;
  pid: number;
  sampler: Sampler;
  startupMs: number;
  idleRssBytes: number;
  /** Stops the broker cleanly; then du of its data; then removes it. */
  stopAndMeasure(): Promise<ReturnType<typeof diskUsage>>;
}

async function startMinnowBroker(tmp: string): Promise<RunningPeer> {
  const dir = mkdtempSync(path.join(tmp, 'minnow-'));
  const t0 = Date.now();
  const b = await BrokerProcess.start(`sqlite://${path.join(dir, 'minnow.db')}`);
  for (let why = await probeMetadata(b.port); why !== null; why = await probeMetadata(b.port)) {
    if (Date.now() - t0 > 60_000) throw new Error(`minnow did not answer Metadata within 60 s: ${why}`);
    await sleep(20);
  }
  const startupMs = Date.now() - t0;
  return {
    bootstrap: b.bootstrap,
    pid: b.pid,
    sampler: b.sampler,
    startupMs,
    idleRssBytes: await idleRss(b.pid),
    async stopAndMeasure() {
      await b.stop();
      const usage = diskUsage(dir);
      rmSync(dir, { recursive: true, force: true });
      return usage;
    },
  };
}

async function startKafkaBroker(heap: string, kafkaVersion: string): Promise<RunningPeer> {
  const { kafka, logDirs } = await startKafkaPeer(heap, kafkaVersion);
  killOnExit(kafka.pid);
  const sampler = new Sampler(kafka.pid, 200);
  return {
    bootstrap: `${kafka.host}:${kafka.port}`,
    pid: kafka.pid,
    sampler,
    startupMs: kafka.startupMs,
    idleRssBytes: await idleRss(kafka.pid),
    async stopAndMeasure() {
      sampler.stop();
      await kafka.stop();
      forgetChild(kafka.pid);
      const usage = diskUsage(logDirs);
      rmSync(kafka.dataDir, { recursive: true, force: true });
      return usage;
    },
  };
}

async function idleRss(pid: number): Promise<number> {
  await sleep(3000);
  return sample(pid)?.rssBytes ?? NaN;
}

/** The sample with the largest VmRSS between two wall times. */
function peakBetween(s: Sampler, fromMs: number, toMs: number): ProcSample | undefined {
  return s.samples
    .filter((x) => x.atMs >= fromMs && x.atMs <= toMs)
    .reduce<ProcSample | undefined>((a, x) => (!a || x.rssBytes > a.rssBytes ? x : a), undefined);
}

/** One kafka-producer-perf-test run: `--num-records N --record-size B --throughput R --producer-props acks=all ...`. */
export async function kafkaProducerPerf(
  peer: RunningPeer,
  o: PeersOptions,
  topic: string,
  numRecords: number,
  recordSize: number,
  throughput: number,
): Promise<ToolFigures> {
  log(`  kafka-producer-perf-test: ${numRecords} x ${recordSize} B at ${throughput < 0 ? 'max' : `${throughput}/s`}`);
  const run = await runKafkaTool(
    'ProducerPerformance',
    [
      '--topic',
      topic,
      '--num-records',
      numRecords,
      '--record-size',
      recordSize,
      '--throughput',
      throughput,
      '--producer-props',
      'acks=all',
      `bootstrap.servers=${peer.bootstrap}`,
    ],
    o.kafkaVersion,
  );
  const t = producerPerfTotal(run.output);
  // The tool's clock starts at its first send, after the JVM and the producer's metadata: its
  // load window is the last records/rate seconds of the process.
  const loadMs = t.recordsPerSec > 0 ? (t.records / t.recordsPerSec) * 1000 : NaN;
  const from = run.toMs - loadMs + (throughput > 0 ? STEADY_AFTER_MS : 0);
  return {
    tool: 'kafka-producer-perf-test',
    records: t.records,
    recordsPerSec: t.recordsPerSec,
    mbPerSec: t.mbPerSec,
    p50Ms: t.p50Ms,
    p99Ms: t.p99Ms,
    p999Ms: t.p999Ms,
    brokerCpuPercent: peer.sampler.cpuPercent(from, run.toMs),
    toolCpuPercent: run.toolCpuPercent,
    missing: numRecords - t.records,
  };
}

function fromProduceSummary(
  run: ToolRun<ProduceSummary>,
  peer: RunningPeer,
  paced: boolean,
  asked: number,
): ToolFigures {
  const s = run.summary;
  const from = Date.parse(s.startedAt);
  return {
    tool: 'minnow perf produce',
    records: s.records,
    recordsPerSec: s.recordsPerSec,
    mbPerSec: s.mbPerSec,
    p50Ms: s.latency.p50Ms,
    p99Ms: s.latency.p99Ms,
    p999Ms: s.latency.p999Ms,
    brokerCpuPercent: peer.sampler.cpuPercent(from + (paced ? STEADY_AFTER_MS : 0), from + s.elapsedMs),
    toolCpuPercent: run.toolCpuPercent,
    missing: asked - s.records,
  };
}

/** `minnow perf produce` with kafka-producer-perf-test's client defaults (batch 16 KiB, 5 in flight). */
async function minnowProducePerf(
  peer: RunningPeer,
  topic: string,
  numRecords: number,
  recordSize: number,
  throughput: number,
): Promise<ToolFigures> {
  log(`  minnow perf produce: ${numRecords} x ${recordSize} B at ${throughput < 0 ? 'max' : `${throughput}/s`}`);
  const args =
    throughput > 0
      ? pacedArgs(peer.bootstrap, topic, { numRecords }, throughput, '5s')
      : produceArgs(peer.bootstrap, topic, recordSize, CONFIGS_1K[0]!, [
          '--num-records',
          numRecords,
          '--throughput',
          -1,
          '--report-interval',
          '5s',
        ]);
  const run = await perf<ProduceSummary>('produce', args);
  for (const line of run.stdout.trim().split('\n')) log(`  ${line}`);
  return fromProduceSummary(run, peer, throughput > 0, numRecords);
}

/** Both tools on one fresh broker; the produce scenario's figures of that broker. */
async function produceScenario(
  peer: RunningPeer,
  o: PeersOptions,
  id: PeerId,
  records: number,
  recordSize: number,
  throughput: number,
): Promise<{ result: PeerScenarioResult; kptTopic: string }> {
  const kptTopic = `kpt-${recordSize}`;
  const from = Date.now();
  const runs = [
    await kafkaProducerPerf(peer, o, kptTopic, records, recordSize, throughput),
    await minnowProducePerf(peer, `mperf-${recordSize}`, records, recordSize, throughput),
  ];
  const peak = peakBetween(peer.sampler, from, Date.now());
  return {
    kptTopic,
    result: {
      peer: id,
      runs,
      startupMs: peer.startupMs,
      idleRssBytes: peer.idleRssBytes,
      // VmHWM: nothing else ran on this broker before these loads.
      peakRssBytes: Math.max(peak?.rssBytes ?? NaN, ...peer.sampler.samples.map((x) => x.hwmBytes)),
      peakAnonBytes: peak?.anonBytes ?? NaN,
      payloadBytes: runs.reduce((sum, r) => sum + r.records * recordSize, 0),
    },
  };
}

/** Reads the 1 KiB topic kafka-producer-perf-test wrote, with each consume tool (1 MiB fetches, Kafka's default). */
async function consumeScenario(
  peer: RunningPeer,
  o: PeersOptions,
  id: PeerId,
  topic: string,
  records: number,
  base: PeerScenarioResult,
): Promise<PeerScenarioResult> {
  const from = Date.now();
  log(`  kafka-consumer-perf-test: ${records} records of ${topic}`);
  const k = await runKafkaTool(
    'ConsumerPerformance',
    ['--bootstrap-server', peer.bootstrap, '--topic', topic, '--messages', records, '--timeout', 20_000],
    o.kafkaVersion,
  );
  const row = consumerPerfRow(k.output);
  const kafkaTool: ToolFigures = {
    tool: 'kafka-consumer-perf-test',
    records: row.records,
    // fetch.*: without the group join (rebalance.time.ms), which Kafka delays by group.initial.rebalance.delay.ms.
    recordsPerSec: row.fetchRecordsPerSec,
    mbPerSec: row.fetchMbPerSec,
    p50Ms: NaN,
    p99Ms: NaN,
    p999Ms: NaN,
    brokerCpuPercent: peer.sampler.cpuPercent(k.toMs - row.fetchMs, k.toMs),
    toolCpuPercent: k.toolCpuPercent,
    missing: records - row.records,
  };
  log(`  minnow perf consume: ${topic}`);
  const m = await perf<ConsumeSummary>('consume', [
    '--bootstrap-server',
    peer.bootstrap,
    '--topic',
    topic,
    '--fetch-size',
    MiB,
    '--timeout',
    '20s',
  ]);
  const s = m.summary;
  const peak = peakBetween(peer.sampler, from, Date.now());
  const mFrom = Date.parse(s.startedAt);
  const minnowTool: ToolFigures = {
    tool: 'minnow perf consume',
    records: s.records,
    recordsPerSec: s.fetchRecordsPerSec,
    mbPerSec: s.fetchMbPerSec,
    p50Ms: NaN,
    p99Ms: NaN,
    p999Ms: NaN,
    brokerCpuPercent: peer.sampler.cpuPercent(mFrom, mFrom + s.elapsedMs),
    toolCpuPercent: m.toolCpuPercent,
    missing: records - s.records,
  };
  return {
    peer: id,
    runs: [kafkaTool, minnowTool],
    startupMs: base.startupMs,
    idleRssBytes: base.idleRssBytes,
    peakRssBytes: peak?.rssBytes ?? NaN,
    peakAnonBytes: peak?.anonBytes ?? NaN,
  };
}

class PeersRun {
  readonly scenarios: PeerScenario[] = [];
  private step = 0;
  private readonly steps = 3 * PEERS.length;

  constructor(
    private readonly tmp: string,
    private readonly o: PeersOptions,
  ) {}

  private scenario(id: ScenarioId, title: string, load: string): PeerScenario {
    let s = this.scenarios.find((x) => x.id === id);
    if (!s) this.scenarios.push((s = { id, title, load, results: [] }));
    return s;
  }

  private async start(p: PeerInfo, what: string): Promise<RunningPeer> {
    this.step++;
    log(`(${this.step}/${this.steps}) ${what} on ${p.label}: starting a fresh broker`);
    const peer = p.heap ? await startKafkaBroker(p.heap, this.o.kafkaVersion) : await startMinnowBroker(this.tmp);
    log(
      `  answered Metadata ${(peer.startupMs / 1000).toFixed(2)} s after spawn; idle RSS ${(peer.idleRssBytes / MiB).toFixed(0)} MB`,
    );
    return peer;
  }

  /**
   * A fresh broker for `run`, stopped and measured (du) after it; stopped also when `run` throws,
   * so no JVM outlives a failed step.
   */
  private async session(
    p: PeerInfo,
    what: string,
    run: (peer: RunningPeer) => Promise<PeerScenarioResult>,
  ): Promise<PeerScenarioResult> {
    const peer = await this.start(p, what);
    let result: PeerScenarioResult;
    try {
      result = await run(peer);
    } catch (err) {
      await peer.stopAndMeasure().catch(() => undefined);
      throw err;
    }
    await this.finish(peer, result);
    return result;
  }

  async all(): Promise<PeerScenario[]> {
    const n = recordCounts(this.o.quick);
    const fmt = (x: number) => x.toLocaleString('en-US');
    const seed = this.scenario(
      'seed',
      `Seed workload: ${fmt(n.seed)} × 1 KiB at ${fmt(SEED_RATE)} records/s, acks=all`,
      `kafka-producer-perf-test \`--num-records ${n.seed} --record-size 1024 --throughput ${SEED_RATE} --producer-props acks=all bootstrap.servers=...\` (the seed article's command), then \`minnow perf produce\` with the same figures, on a fresh broker.`,
    );
    const max1k = this.scenario(
      'max1k',
      `Maximum produce, ${fmt(n.max1k)} × 1 KiB, acks=all`,
      `kafka-producer-perf-test \`--num-records ${n.max1k} --record-size 1024 --throughput -1 --producer-props acks=all bootstrap.servers=...\` (client defaults: batch.size 16 KiB, linger.ms 5, 5 requests in flight), then \`minnow perf produce\` with batch 16 KiB and 5 in flight.`,
    );
    const consume = this.scenario(
      'consume',
      'Consume the 1 KiB topic',
      "On the broker of the 1 KiB run, right after it: kafka-consumer-perf-test `--messages <records> --timeout 20000` (a consumer group, 1 MiB fetches), then `minnow perf consume --fetch-size 1048576`, both reading the topic kafka-producer-perf-test wrote. Throughput excludes joining the group (Kafka's fetch.MB.sec).",
    );
    const max100 = this.scenario(
      'max100',
      `Maximum produce, ${fmt(n.max100)} × 100 B, acks=all`,
      `kafka-producer-perf-test \`--num-records ${n.max100} --record-size 100 --throughput -1 --producer-props acks=all bootstrap.servers=...\`, then \`minnow perf produce\` with batch 16 KiB and 5 in flight.`,
    );
    for (const p of PEERS)
      seed.results.push(
        await this.session(p, 'seed workload', async (peer) => {
          return (await produceScenario(peer, this.o, p.id, n.seed, 1024, SEED_RATE)).result;
        }),
      );
    for (const p of PEERS)
      max1k.results.push(
        await this.session(p, 'max produce 1 KiB, then consume', async (peer) => {
          const { result, kptTopic } = await produceScenario(peer, this.o, p.id, n.max1k, 1024, -1);
          consume.results.push(await consumeScenario(peer, this.o, p.id, kptTopic, result.runs[0]!.records, result));
          return result;
        }),
      );
    for (const p of PEERS)
      max100.results.push(
        await this.session(p, 'max produce 100 B', async (peer) => {
          return (await produceScenario(peer, this.o, p.id, n.max100, 100, -1)).result;
        }),
      );
    return this.scenarios;
  }

  private async finish(peer: RunningPeer, result: PeerScenarioResult): Promise<void> {
    result.disk = await peer.stopAndMeasure();
    const ratio = bytesPerPayloadByte(result.disk, result.payloadBytes ?? 0);
    log(
      `  stopped; ${(result.disk.allocatedBytes / MiB).toFixed(0)} MB on disk, ${ratio.toFixed(2)} bytes per payload byte`,
    );
    for (const r of result.runs)
      if (r.missing > 0) log(`  warning: ${r.tool} got ${r.missing} records fewer acknowledged than it sent`);
  }
}

/** The JVM's name and version, as `java -version` prints it (on stderr): "OpenJDK 64-Bit Server VM (build ...)". */
function javaVersion(): string {
  const res = spawnSync(process.env.KAFKA_ORACLE_JAVA ?? 'java', ['-version'], { encoding: 'utf8' });
  const lines = `${res.stderr ?? ''}${res.stdout ?? ''}`.trim().split('\n');
  return lines.find((l) => /^openjdk|^java /i.test(l))?.trim() ?? lines[0]?.trim() ?? 'java ?';
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
}

/** Whether java and mvn are here; otherwise why not (the bench then skips this part). */
export function peersUnavailable(): string | undefined {
  for (const [tool, hint] of [
    [process.env.KAFKA_ORACLE_JAVA ?? 'java', 'apt-get install -y openjdk-17-jdk-headless'],
    ['mvn', 'apt-get install -y maven'],
  ] as const) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch {
      return `${tool} is not available (${hint})`;
    }
  }
  return undefined;
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Runs every scenario on every broker; writes the outputs unless told not to. Needs bench/.build. */
export async function runPeers(o: PeersOptions): Promise<PeersResults> {
  const t0 = Date.now();
  log(`peers: Apache Kafka ${o.kafkaVersion} beside minnow${o.quick ? ' (--quick)' : ''}`);
  await resolveKafkaJars({ kafkaVersion: o.kafkaVersion, log });
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-peers-'));
  const machine = {
    cpu: `${os.cpus()[0]?.model.trim() ?? '?'}, ${os.cpus().length} vCPU`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadBefore: loadavg(),
    loadAfter: '',
  };
  let scenarios: PeerScenario[];
  try {
    scenarios = await new PeersRun(tmp, o).all();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  machine.loadAfter = loadavg();
  const results: PeersResults = {
    startedAt: new Date(t0).toISOString(),
    durationS: (Date.now() - t0) / 1000,
    quick: o.quick,
    machine,
    commit: gitCommit(),
    kafkaVersion: o.kafkaVersion,
    java: javaVersion(),
    peers: PEERS,
    kafkaSettings: kafkaSettingsText(o.kafkaVersion),
    minnowSettings: MINNOW_SETTINGS,
    scenarios,
  };
  const md = renderPeers(results);
  process.stdout.write(`${md}\n\nREADME summary:\n\n${renderReadmeSummary(results)}\n`);
  if (o.write && !o.quick) writePeerOutputs(results);
  else log(`peers: done in ${results.durationS.toFixed(0)} s (files not written${o.quick ? ': --quick' : ''})`);
  return results;
}

/** BENCHMARKS.md's bench:peers block, the README's summary block (if it has the markers), the JSON. */
export function writePeerOutputs(results: PeersResults): void {
  writeFileSync(RESULTS_JSON, `${JSON.stringify(results, null, 1)}\n`);
  const bench = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, 'utf8') : '# Benchmarks\n';
  writeFileSync(BENCHMARKS_MD, replaceMarkedBlock(bench, 'bench:peers', renderPeers(results), true)!);
  const readme = readFileSync(README_MD, 'utf8');
  const next = replaceMarkedBlock(readme, 'bench:peers-summary', renderReadmeSummary(results), false);
  if (next !== undefined) writeFileSync(README_MD, next);
  else log('README.md has no bench:peers-summary markers: its summary table was printed above, not written');
  log(
    `peers: wrote ${path.relative(REPO, BENCHMARKS_MD)}${next !== undefined ? ', README.md' : ''} and ${path.relative(REPO, RESULTS_JSON)} in ${results.durationS.toFixed(0)} s`,
  );
}

/** `npm run bench`'s last part: the peers, or a note saying what to install (bench/.build is built). */
export async function runPeersIfAvailable(o: Omit<PeersOptions, 'kafkaVersion'>): Promise<void> {
  const missing = peersUnavailable();
  if (missing) log(`peers skipped: ${missing}; install it, then npm run bench:peers`);
  else await runPeers({ ...o, kafkaVersion: DEFAULT_KAFKA_VERSION });
}

function parseArgs(argv: string[]): PeersOptions & { renderOnly: boolean } {
  const i = argv.indexOf('--kafka-version');
  return {
    quick: argv.includes('--quick'),
    write: !argv.includes('--no-write'),
    renderOnly: argv.includes('--render-only'),
    kafkaVersion: i >= 0 && argv[i + 1] ? argv[i + 1]! : DEFAULT_KAFKA_VERSION,
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.renderOnly) {
    writePeerOutputs(JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as PeersResults);
    return;
  }
  const missing = peersUnavailable();
  if (missing) throw new Error(`bench:peers needs a JDK 17+ and Maven: ${missing}`);
  buildSources();
  await runPeers(o);
}

if (require.main === module)
  main().catch((err) => {
    log(`peers failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  });
