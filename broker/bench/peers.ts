// `npm run bench:peers` (also the last part of `npm run bench`): minnow beside Apache Kafka on the
// same machine in one run. Each scenario starts each broker fresh (minnow on a new SQLite file;
// Kafka 4.x KRaft with its default 1G heap, then with the 256m a t3.micro leaves it, on a new log
// dir) and drives it with Kafka's own kafka-producer-perf-test / kafka-consumer-perf-test and with
// `minnow perf`. Broker CPU and RSS come from /proc of the broker process (the JVM for Kafka).
// Writes BENCHMARKS.md's bench:peers block, bench/peers-last-run.json and the summary table between
// the bench:peers-summary markers (BENCHMARKS.md's Summary; the README's too if it has them).
//
// Flags: --quick (small record counts, to try the harness; writes nothing), --no-write,
// --kafka-version V (default: the kafka-oracle's), --render-only (from bench/peers-last-run.json),
// --only seed,capacity,max1k,max100,codecs (those scenarios alone: max1k includes consume; prints
// the tables and writes bench/.out/peers-only.json, never BENCHMARKS.md: its block is one whole run).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_KAFKA_VERSION, resolveKafkaJars } from '../tools/kafka-oracle/kafka';
import { capacityPlan, capacityScenario } from './capacity-scenario';
import { CODEC_SCENARIO_TITLE, CODECS, codecLoadText, codecPlan, codecRatiosLine } from './codec-report';
import { codecPayloadFile, codecScenario, mergeCodecResults } from './codec-scenario';
import { bytesPerPayloadByte } from './disk-usage';
import { KAFKA_DEFAULT_HEAP, KAFKA_T3_MICRO_HEAP, kafkaSettingsText } from './kafka-peer';
import { SEED_RATE } from './load-args';
import { RunningPeer, startKafkaBroker, startMinnowBroker } from './peer-brokers';
import { CONSUME_READS, consumeScenario, produceScenario } from './peer-scenarios';
import {
  PeerInfo,
  PeerScenario,
  PeerScenarioResult,
  PeersResults,
  renderPeers,
  renderReadmeSummary,
  replaceMarkedBlock,
  ScenarioId,
} from './peers-report';
import { BROKER_DIR, buildSources, log, OUT, waitForQuietMachine } from './processes';

const REPO = path.resolve(BROKER_DIR, '..');
const BENCHMARKS_MD = path.join(REPO, 'BENCHMARKS.md');
const README_MD = path.join(REPO, 'README.md');
const RESULTS_JSON = path.join(BROKER_DIR, 'bench', 'peers-last-run.json');
const MiB = 1024 * 1024;

export interface PeersOptions {
  quick: boolean;
  write: boolean;
  kafkaVersion: string;
  /** Run these scenarios alone (undefined: all); consume runs with max1k. */
  only?: ScenarioId[];
}

/** The scenarios --only can name, in the order a whole run takes them. */
export const SELECTABLE: ScenarioId[] = ['seed', 'capacity', 'max1k', 'max100', 'codecs'];

/** --only's value: a comma-separated list of SELECTABLE names (consume: max1k). */
export function parseOnly(raw: string): ScenarioId[] {
  const names = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const mapped = names.map((n) => (n === 'consume' ? 'max1k' : n));
  const bad = mapped.filter((n) => !SELECTABLE.includes(n as ScenarioId));
  if (names.length === 0 || bad.length > 0)
    throw new Error(
      `--only ${raw}: expected a comma-separated list of ${SELECTABLE.join(', ')} (consume runs with max1k)`,
    );
  return SELECTABLE.filter((id) => mapped.includes(id));
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

/** The baseline scenario runs on the brokers a t3.micro would run: minnow, and Kafka in the heap it leaves. */
const CAPACITY_PEERS = PEERS.filter((p) => p.id !== 'kafka-default');

export const MINNOW_SETTINGS =
  '`minnow serve --listener tcp://127.0.0.1:<port> --storage sqlite://<fresh file>` with every other setting at its default: SQLite WAL with synchronous=NORMAL, produce requests of the same millisecond share one transaction (MINNOW_COMMIT_INTERVAL_MS=1), and a produce is acknowledged once its transaction has committed to the WAL, with no fsync per commit (the WAL is fsynced at checkpoints): safe against a broker crash, not a power loss.';

class PeersRun {
  readonly scenarios: PeerScenario[] = [];
  private step = 0;
  private readonly steps: number;

  constructor(
    private readonly tmp: string,
    private readonly o: PeersOptions,
  ) {
    const perScenario = { seed: PEERS, capacity: CAPACITY_PEERS, max1k: PEERS, max100: PEERS, codecs: CAPACITY_PEERS };
    // The codec scenario starts a fresh pair of brokers per codec.
    const times = (id: ScenarioId) => (id === 'codecs' ? CODECS.length : 1);
    this.steps = this.selected().reduce(
      (n, id) => n + times(id) * perScenario[id as keyof typeof perScenario].length,
      0,
    );
  }

  private selected(): ScenarioId[] {
    return this.o.only ?? SELECTABLE;
  }

  private runs(id: ScenarioId): boolean {
    return this.selected().includes(id);
  }

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
    if (this.runs('seed')) {
      const seed = this.scenario(
        'seed',
        `Seed workload: ${fmt(n.seed)} × 1 KiB at ${fmt(SEED_RATE)} records/s, acks=all`,
        `kafka-producer-perf-test \`--num-records ${n.seed} --record-size 1024 --throughput ${SEED_RATE} --producer-props acks=all bootstrap.servers=...\` (the seed article's command), then \`minnow perf produce\` with the same figures, on a fresh broker.`,
      );
      for (const p of PEERS)
        seed.results.push(
          await this.session(p, 'seed workload', async (peer) => {
            return (await produceScenario(peer, this.o.kafkaVersion, p.id, n.seed, 1024, SEED_RATE)).result;
          }),
        );
    }
    if (this.runs('capacity')) {
      const plan = capacityPlan(this.o.quick);
      const capacity = this.scenario(
        'capacity',
        `t3.micro baseline: the highest rate of 1 KiB records with broker CPU within 20 % of one core over ${plan.windowS} s`,
        `kafka-producer-perf-test \`--record-size 1024 --throughput <rate> --producer-props acks=all bootstrap.servers=...\` (the seed article's command) at up to ${plan.maxSteps} rates from ${fmt(SEED_RATE)}/s, each on a new topic for ${plan.windowS} s after 3 s of warm-up, on one fresh broker per column warmed first by ${plan.warmUpS} s at ${fmt(SEED_RATE)}/s (not measured: a cold JVM's first window costs it twice its later ones): a rate passes when the broker's CPU over the window is at most 20 % of a core (a t3.micro's CPU credit baseline: 10 % of each of its 2 vCPUs) and the tool reached 97 % of it. The next rate follows the line through the last two measurements, kept inside the bracket of the highest passing and lowest failing rates; the search stops when they are within 5 %.`,
      );
      for (const p of CAPACITY_PEERS)
        capacity.results.push(
          await this.session(p, 't3.micro baseline capacity', (peer) =>
            capacityScenario(peer, this.o.kafkaVersion, p.id, this.o.quick),
          ),
        );
    }
    if (this.runs('max1k')) {
      const max1k = this.scenario(
        'max1k',
        `Maximum produce, ${fmt(n.max1k)} × 1 KiB, acks=all`,
        `kafka-producer-perf-test \`--num-records ${n.max1k} --record-size 1024 --throughput -1 --producer-props acks=all bootstrap.servers=...\` (client defaults: batch.size 16 KiB, linger.ms 5, 5 requests in flight), then \`minnow perf produce\` with batch 16 KiB and 5 in flight.`,
      );
      const consume = this.scenario(
        'consume',
        'Consume the 1 KiB topic',
        `On the broker of the 1 KiB run, right after it: kafka-consumer-perf-test \`--messages <records> --timeout 60000\` (a consumer group, 1 MiB fetches), then \`minnow perf consume --fetch-size 1048576\`, both reading the topic kafka-producer-perf-test wrote, each tool ${CONSUME_READS} times from the start: the figures are the read with the median MB/s. Throughput excludes joining the group (Kafka's fetch.MB.sec).`,
      );
      for (const p of PEERS)
        max1k.results.push(
          await this.session(p, 'max produce 1 KiB, then consume', async (peer) => {
            const { result, kptTopic } = await produceScenario(peer, this.o.kafkaVersion, p.id, n.max1k, 1024, -1);
            consume.results.push(
              await consumeScenario(peer, this.o.kafkaVersion, p.id, kptTopic, result.runs[0]!.records, result),
            );
            return result;
          }),
        );
    }
    if (this.runs('max100')) {
      const max100 = this.scenario(
        'max100',
        `Maximum produce, ${fmt(n.max100)} × 100 B, acks=all`,
        `kafka-producer-perf-test \`--num-records ${n.max100} --record-size 100 --throughput -1 --producer-props acks=all bootstrap.servers=...\`, then \`minnow perf produce\` with batch 16 KiB and 5 in flight.`,
      );
      for (const p of PEERS)
        max100.results.push(
          await this.session(p, 'max produce 100 B', async (peer) => {
            return (await produceScenario(peer, this.o.kafkaVersion, p.id, n.max100, 100, -1)).result;
          }),
        );
    }
    if (this.runs('codecs')) await this.codecs();
    return this.scenarios;
  }

  /** Compressed produce per codec (issue 33, goal 4), on the brokers a t3.micro would run. */
  private async codecs(): Promise<void> {
    const plan = codecPlan(this.o.quick);
    const codecs = this.scenario('codecs', CODEC_SCENARIO_TITLE, codecLoadText(plan));
    const payloadFile = codecPayloadFile(this.tmp);
    // A fresh pair of brokers per codec, one after the other: the two columns of a codec are
    // measured minutes apart, not a whole column apart (other work on a shared machine drifts).
    const parts = new Map<string, PeerScenarioResult[]>();
    for (const run of plan)
      for (const p of CAPACITY_PEERS) {
        const part = await this.session(p, `compressed produce, ${run.codec}`, (peer) =>
          codecScenario(peer, this.o.kafkaVersion, p.id, [run], payloadFile),
        );
        parts.set(p.id, [...(parts.get(p.id) ?? []), part]);
      }
    for (const p of CAPACITY_PEERS) codecs.results.push(mergeCodecResults(parts.get(p.id)!));
    const [minnow, kafka] = ['minnow', 'kafka-small'].map((id) => codecs.results.find((r) => r.peer === id));
    if (minnow && kafka) for (const c of CODECS) log(`  ${c}, minnow ÷ Kafka: ${codecRatiosLine(minnow, kafka, c)}`);
  }

  private async finish(peer: RunningPeer, result: PeerScenarioResult): Promise<void> {
    result.disk = await peer.stopAndMeasure();
    const ratio = bytesPerPayloadByte(result.disk, result.payloadBytes ?? 0);
    log(
      `  stopped; ${(result.disk.allocatedBytes / MiB).toFixed(0)} MB on disk${result.disk.reserveBytes ? ` (of which the reserve file ${(result.disk.reserveBytes / MiB).toFixed(0)} MB)` : ''}, ${Number.isFinite(ratio) ? `${ratio.toFixed(2)} bytes per payload byte without it` : 'payload not counted in this scenario'}`,
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
  if (o.only) {
    // A part of a run: kept apart, so BENCHMARKS.md's block always holds one whole run.
    const file = path.join(OUT, 'peers-only.json');
    writeFileSync(file, `${JSON.stringify(results, null, 1)}\n`);
    log(
      `peers: --only ${o.only.join(',')} done in ${results.durationS.toFixed(0)} s; wrote ${file}, not BENCHMARKS.md`,
    );
  } else if (o.write && !o.quick) writePeerOutputs(results);
  else log(`peers: done in ${results.durationS.toFixed(0)} s (files not written${o.quick ? ': --quick' : ''})`);
  return results;
}

/**
 * BENCHMARKS.md's bench:peers block, the summary block wherever its markers are (BENCHMARKS.md's
 * Summary since the README became a landing page; the README too if it has them), the JSON.
 */
export function writePeerOutputs(results: PeersResults): void {
  writeFileSync(RESULTS_JSON, `${JSON.stringify(results, null, 1)}\n`);
  const summary = renderReadmeSummary(results);
  const current = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, 'utf8') : '# Benchmarks\n';
  const withPeers = replaceMarkedBlock(current, 'bench:peers', renderPeers(results), true)!;
  const withSummary = replaceMarkedBlock(withPeers, 'bench:peers-summary', summary, false);
  writeFileSync(BENCHMARKS_MD, withSummary ?? withPeers);
  const readme = readFileSync(README_MD, 'utf8');
  const next = replaceMarkedBlock(readme, 'bench:peers-summary', summary, false);
  if (next !== undefined) writeFileSync(README_MD, next);
  if (next === undefined && withSummary === undefined) {
    log(
      'neither BENCHMARKS.md nor README.md has bench:peers-summary markers: the summary was printed above, not written',
    );
  }
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
  const j = argv.indexOf('--only');
  if (j >= 0 && !argv[j + 1]) throw new Error(`--only needs a value: ${SELECTABLE.join(',')}`);
  return {
    only: j >= 0 ? parseOnly(argv[j + 1]!) : undefined,
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
  if (!o.quick && !o.only) await waitForQuietMachine();
  await runPeers(o);
}

if (require.main === module)
  main().catch((err) => {
    log(`peers failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  });
