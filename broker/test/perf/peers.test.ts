// bench:peers' pure parts (broker/bench): what Kafka's perf tools print, du, the tables and markers.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bytesPerPayloadByte, diskUsage, sumUsage } from '../../bench/disk-usage';
import { consumerPerfRow, parseProducerPerfTotal, producerPerfTotal } from '../../bench/kafka-perf-output';
import {
  PeerScenario,
  PeerScenarioResult,
  PeersResults,
  ratio,
  renderPeers,
  renderReadmeSummary,
  renderScenarioTable,
  replaceMarkedBlock,
} from '../../bench/peers-report';
import { PEERS, peersResults, tool } from './peer-fixtures';

// Printed by kafka-producer-perf-test 4.1.1 against minnow on this machine.
const KPT_4_1_TOTAL =
  '20000 records sent, 6697.9 records/sec (6.54 MB/sec), 469.92 ms avg latency, 797.00 ms max latency, 470 ms 50th, 741 ms 95th, 763 ms 99th, 769 ms 99.9th.';
const KPT_WINDOW = '34998 records sent, 6999.6 records/sec (6.84 MB/sec), 2.1 ms avg latency, 150.0 ms max latency.';
// Later versions print records/sec with "%f"; a --warmup-records run adds a steady-state line.
const KPT_LATER_TOTAL =
  '200000 records sent, 6999.300070 records/sec (6.84 MB/sec), 3.21 ms avg latency, 245.00 ms max latency, 2 ms 50th, 8 ms 95th, 20 ms 99th, 40 ms 99.9th.';
const KPT_STEADY =
  '150000 steady state records sent, 7000.100000 records/sec (6.84 MB/sec), 2.00 ms avg latency, 30.00 ms max latency, 1 ms 50th, 4 ms 95th, 9 ms 99th, 12 ms 99.9th.';
// Printed by kafka-consumer-perf-test 4.1.1 against minnow.
const KCPT_OUTPUT = [
  'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
  '2026-12-03 18:57:29:055, 2026-12-03 18:57:34:231, 19.5313, 3.7734, 20000, 3863.9876, 4253, 923, 21.1606, 21668.4724',
  '',
].join('\n');

describe("kafka-producer-perf-test's output", () => {
  it('reads the summary line of 4.1 and of later versions', () => {
    expect(parseProducerPerfTotal(KPT_4_1_TOTAL)).toEqual({
      records: 20000,
      steadyState: false,
      recordsPerSec: 6697.9,
      mbPerSec: 6.54,
      avgMs: 469.92,
      maxMs: 797,
      p50Ms: 470,
      p95Ms: 741,
      p99Ms: 763,
      p999Ms: 769,
    });
    expect(parseProducerPerfTotal(KPT_LATER_TOTAL)).toMatchObject({
      records: 200000,
      recordsPerSec: 6999.30007,
      p99Ms: 20,
    });
    expect(parseProducerPerfTotal(KPT_STEADY)).toMatchObject({ steadyState: true, records: 150000, p999Ms: 12 });
  });

  it('is not fooled by the 5-second window lines or other output', () => {
    expect(parseProducerPerfTotal(KPT_WINDOW)).toBeUndefined();
    expect(
      parseProducerPerfTotal('org.apache.kafka.common.errors.TimeoutException: Expiring 16 record(s)'),
    ).toBeUndefined();
  });

  it("takes the whole run's summary, not the steady-state one printed after it", () => {
    const out = ['Warmup first 50000 records.', KPT_WINDOW, KPT_LATER_TOTAL, KPT_STEADY, ''].join('\n');
    expect(producerPerfTotal(out)).toMatchObject({ records: 200000, steadyState: false });
  });

  it('says what the tool printed when there is no summary', () => {
    expect(() => producerPerfTotal(`${KPT_WINDOW}\njava.lang.OutOfMemoryError: Java heap space\n`)).toThrow(
      /printed no summary line[\s\S]*OutOfMemoryError/,
    );
  });
});

describe("kafka-consumer-perf-test's output", () => {
  it('reads the row under the header', () => {
    expect(consumerPerfRow(`some warning\n${KCPT_OUTPUT}`)).toEqual({
      mb: 19.5313,
      mbPerSec: 3.7734,
      records: 20000,
      recordsPerSec: 3863.9876,
      rebalanceMs: 4253,
      fetchMs: 923,
      fetchMbPerSec: 21.1606,
      fetchRecordsPerSec: 21668.4724,
    });
  });

  it('reads the row after the warning of a run that timed out', () => {
    const [header, row] = KCPT_OUTPUT.split('\n');
    const out = [
      header,
      'WARNING: Exiting before consuming the expected number of messages: timeout (20000 ms) exceeded. You can use the --timeout option to increase the timeout.',
      row!.replace(', 20000, ', ', 1200, '),
    ].join('\n');
    expect(consumerPerfRow(out)).toMatchObject({ records: 1200, fetchMs: 923 });
  });

  it('refuses output without the row', () => {
    expect(() => consumerPerfRow(KCPT_OUTPUT.split('\n')[0]!)).toThrow(/no result row/);
    expect(() => consumerPerfRow('WARN Connection to node -1 could not be established')).toThrow(/no result row/);
  });
});

describe('du of a broker data folder', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'minnow-du-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts allocated blocks as du does, so a preallocated sparse index counts what it holds', () => {
    mkdirSync(path.join(dir, 'logs', 'topic-0'), { recursive: true });
    writeFileSync(path.join(dir, 'logs', 'topic-0', '00000000000000000000.log'), Buffer.alloc(100_000, 1));
    const index = path.join(dir, 'logs', 'topic-0', '00000000000000000000.index');
    writeFileSync(index, Buffer.alloc(4096, 1));
    truncateSync(index, 10 * 1024 * 1024); // as Kafka preallocates segment.index.bytes
    const u = diskUsage(path.join(dir, 'logs'));
    expect(u.files).toBe(2);
    expect(u.apparentBytes).toBe(100_000 + 10 * 1024 * 1024);
    expect(u.allocatedBytes).toBeLessThan(1024 * 1024);
    // du itself, files only (its total also counts the folders' own blocks)
    const du = execFileSync('du', ['-B1', '-c', path.join(dir, 'logs', 'topic-0', '00000000000000000000.log'), index], {
      encoding: 'utf8',
    });
    expect(u.allocatedBytes).toBe(Number(/^(\d+)\s+total$/m.exec(du)![1]));
  });

  it('counts nothing for a path that is not there (a -wal removed at close)', () => {
    writeFileSync(path.join(dir, 'm.db'), Buffer.alloc(8192, 1));
    const u = diskUsage(path.join(dir, 'm.db'), path.join(dir, 'm.db-wal'));
    expect(u.files).toBe(1);
    expect(u.apparentBytes).toBe(8192);
  });

  it('adds regular files only, in 512-byte blocks, and divides by the payload', () => {
    const file = (size: number, blocks: number) => ({ size, blocks, isFile: () => true });
    const folder = { size: 4096, blocks: 8, isFile: () => false };
    const u = sumUsage([file(1000, 8), folder, file(5000, 16)]);
    expect(u).toEqual({ allocatedBytes: 24 * 512, apparentBytes: 6000, files: 2 });
    expect(bytesPerPayloadByte(u, 6144)).toBe(2);
    expect(bytesPerPayloadByte(u, 0)).toBeNaN();
    // minnow's reserve file holds no data: it is shown apart, not in the ratio.
    expect(bytesPerPayloadByte({ ...u, reserveBytes: 12 * 512 }, 6144)).toBe(1);
  });
});

const result = (peer: PeerScenarioResult['peer'], p99: number, cpu: number, rss: number): PeerScenarioResult => ({
  peer,
  runs: [tool('kafka-producer-perf-test', 7000, p99, cpu), tool('minnow perf produce', 7000, p99 / 2, cpu)],
  startupMs: peer === 'minnow' ? 300 : 6000,
  idleRssBytes: rss * 1024 * 1024,
  peakRssBytes: rss * 2 * 1024 * 1024,
  peakAnonBytes: rss * 1024 * 1024,
  disk:
    peer === 'minnow'
      ? { allocatedBytes: 3072, apparentBytes: 3072, files: 2, reserveBytes: 1024 }
      : { allocatedBytes: 2048, apparentBytes: 2048, files: 1 },
  payloadBytes: 1024,
});

const SEED: PeerScenario = {
  id: 'seed',
  title: 'Seed workload',
  load: 'the load',
  results: [result('minnow', 4, 25, 60), result('kafka-default', 8, 50, 400), result('kafka-small', 16, 100, 300)],
};

const results: PeersResults = peersResults(
  [SEED],
  'Apache Kafka 4.1.1 ...\nJVM: java -Xms<heap> ...\nno fsync per message',
);

describe('peer tables', () => {
  it('writes ratios as minnow ÷ Kafka with two significant figures, and a dash when one is missing', () => {
    expect(ratio(1, 4)).toBe('0.25×');
    expect(ratio(1, 3)).toBe('0.33×');
    expect(ratio(3, 2)).toBe('1.50×');
    expect(ratio(123, 4)).toBe('31×');
    expect(ratio(NaN, 2)).toBe('–');
    expect(ratio(2, 0)).toBe('–');
  });

  it('has a column per broker and a ratio column per Kafka, a row per figure', () => {
    const table = renderScenarioTable(SEED, PEERS);
    const lines = table.split('\n');
    expect(lines[0]).toBe(
      '|  | minnow | Kafka, 1G heap | Kafka, 256m heap | minnow ÷ Kafka, 1G heap | minnow ÷ Kafka, 256m heap |',
    );
    expect(lines).toContain(
      '| kafka-producer-perf-test: latency p50 / p99 / p99.9 ms | 1.00 / 4.00 / 8.00 | 2.00 / 8.00 / 16.0 | 4.00 / 16.0 / 32.0 | 0.50× / 0.50× / 0.50× | 0.25× / 0.25× / 0.25× |',
    );
    expect(lines).toContain(
      '| kafka-producer-perf-test: broker CPU, % of a core | 25 % | 50 % | 100 % | 0.50× | 0.25× |',
    );
    expect(lines).toContain('| broker RSS idle | 60 MB | 400 MB | 300 MB | 0.15× | 0.20× |');
    expect(lines).toContain(
      '| of which anonymous (heap, buffers; not mapped files) | 60 MB | 400 MB | 300 MB | 0.15× | 0.20× |',
    );
    // The tool's CPU is shown (a tool at a full core is the bound) but is no figure of the broker: no ratio.
    expect(lines).toContain("| kafka-producer-perf-test: the tool's own CPU, % of a core | 90 % | 90 % | 90 % |  |  |");
    expect(lines).toContain(
      '| bytes on disk per payload byte (without the reserve file) | 2.00 | 2.00 | 2.00 | 1.00× | 1.00× |',
    );
    expect(lines).toContain("| minnow's reserve file, apart | 0 MB | – | – |  |  |");
    expect(lines).toContain('| start to first answered Metadata | 0.30 s | 6.00 s | 6.00 s | 0.050× | 0.050× |');
  });

  it('leaves a broker out when the scenario did not run on it, and shows a dash for a missing tool run', () => {
    const s: PeerScenario = {
      ...SEED,
      results: [{ ...SEED.results[0]!, runs: SEED.results[0]!.runs.slice(1) }, SEED.results[1]!],
    };
    const table = renderScenarioTable(s, PEERS);
    expect(table).not.toContain('256m');
    expect(table).toContain('| kafka-producer-perf-test: broker CPU, % of a core | – | 50 % | – |');
  });

  it('says in the throughput cell when a tool got fewer records through than it was asked', () => {
    const short = result('kafka-small', 16, 100, 300);
    short.runs[0] = { ...short.runs[0]!, missing: 1500 };
    const table = renderScenarioTable({ ...SEED, results: [SEED.results[0]!, short] }, PEERS);
    expect(table).toContain(
      '| kafka-producer-perf-test: records/s (MB/s) | 7,000 (6.8) | 7,000 (6.8), 1,500 records short | 1.00× |',
    );
  });

  it('shows the baseline capacity found, the figures at it and every rate tried, with ratios to the Kafka it ran on', () => {
    const step = (rate: number, cpu: number, pass: boolean) => ({
      rate,
      brokerCpuPercent: cpu,
      achievedRate: rate,
      pass,
    });
    const found = (peer: PeerScenarioResult['peer'], rate: number, cpu: number, steps: ReturnType<typeof step>[]) => ({
      ...result(peer, 4, cpu, 60),
      runs: [{ ...tool('kafka-producer-perf-test', rate, 4, cpu) }],
      capacity: { rate, budgetPercent: 20, windowS: 60, steps },
    });
    const s: PeerScenario = {
      id: 'capacity',
      title: 't3.micro baseline',
      load: 'the load',
      results: [
        found('minnow', 14000, 19, [step(7000, 10, true), step(14000, 19, true), step(15000, 21, false)]),
        found('kafka-small', 3500, 20, [{ ...step(7000, 40, false), achievedRate: 5000 }, step(3500, 20, true)]),
      ],
    };
    const lines = renderScenarioTable(s, PEERS).split('\n');
    expect(lines).toContain('| highest rate with broker CPU within the budget, records/s | 14,000 | 3,500 | 4.00× |');
    expect(lines).toContain('| broker CPU at that rate, % of a core | 19 % | 20 % | 0.95× |');
    expect(lines).toContain(
      '| rates tried: broker CPU (✓ within, ✗ over or not reached) | 7,000: 10 % ✓, 14,000: 19 % ✓, 15,000: 21 % ✗ | 7,000: 40 % ✗ (reached 5,000), 3,500: 20 % ✓ |  |',
    );
    const summary = renderReadmeSummary({ ...results, scenarios: [s] });
    expect(summary).toContain(
      '| t3.micro baseline: 1 KiB records/s within 20 % of a core | 14,000 | – | 3,500 | – | 4.00× |',
    );
  });

  it('prints the settings and the durability of both with the tables', () => {
    const md = renderPeers(results);
    expect(md).toContain('### Seed workload');
    expect(md).toContain('- Kafka: no fsync per message');
    expect(md).toContain('- minnow: acknowledged after the WAL commit');
    expect(md).toContain('- JVM: java -Xms<heap> ...');
  });

  it("gives the README each scenario's headline figure with its ratios", () => {
    const md = renderReadmeSummary(results);
    expect(md).toContain('| seed p99 ms, kafka-producer-perf-test | 4.00 | 8.00 | 16.0 | 0.50× | 0.25× |');
    expect(md).toContain('| seed p99 ms, minnow perf | 2.00 | 4.00 | 8.00 | 0.50× | 0.25× |');
    expect(md).not.toContain('max produce 1 KiB'); // that scenario did not run
  });
});

describe('generated blocks', () => {
  const block = (name: string, body: string) =>
    `<!-- ${name}:start (generated by \`npm run bench:peers\`; edits here are overwritten) -->\n${body}\n<!-- ${name}:end -->`;

  it('replaces only what is between its own markers', () => {
    const doc = `# B\n\n${block('bench:load', 'load')}\n\n${block('bench:peers', 'old')}\n\ntail\n`;
    expect(replaceMarkedBlock(doc, 'bench:peers', 'new\n', true)).toBe(
      `# B\n\n${block('bench:load', 'load')}\n\n${block('bench:peers', 'new')}\n\ntail\n`,
    );
  });

  it('appends the block to a document without it, or leaves a README without markers alone', () => {
    expect(replaceMarkedBlock('# B\n', 'bench:peers', 'x', true)).toBe(`# B\n\n${block('bench:peers', 'x')}\n`);
    expect(replaceMarkedBlock('# README\n', 'bench:peers-summary', 'x', false)).toBeUndefined();
  });
});
