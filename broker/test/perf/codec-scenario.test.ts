// bench:peers' compressed-produce scenario (codec-report.ts, codec-scenario.ts) and --only.
import { CODECS, codecPlan, cpuMsPerMb } from '../../bench/codec-report';
import { mergeCodecResults } from '../../bench/codec-scenario';
import { parseOnly } from '../../bench/peers';
import {
  PeerScenario,
  PeerScenarioResult,
  PeersResults,
  renderReadmeSummary,
  renderScenarioTable,
  ToolFigures,
} from '../../bench/peers-report';
import { PEERS, peersResults, tool } from './peer-fixtures';

const SEED: PeerScenario = {
  id: 'seed',
  title: 'Seed workload',
  load: 'the load',
  results: [
    {
      peer: 'minnow',
      runs: [tool('kafka-producer-perf-test', 7000, 4, 25)],
      startupMs: 300,
      idleRssBytes: 60 * 1024 * 1024,
      peakRssBytes: 120 * 1024 * 1024,
    },
  ],
};

const results: PeersResults = peersResults([SEED], 'Apache Kafka 4.1.1 ...\nno fsync per message');

describe('the compressed produce scenario', () => {
  const codecRun = (
    t: ToolFigures['tool'],
    codec: string,
    mbPerSec: number,
    cpu: number,
    more: Partial<ToolFigures> = {},
  ): ToolFigures => ({
    ...tool(t, mbPerSec * 1024, NaN, cpu),
    mbPerSec,
    codec,
    ...more,
  });
  const codecResult = (peer: PeerScenarioResult['peer'], scale: number): PeerScenarioResult => ({
    peer,
    runs: CODECS.flatMap((c, i) => [
      codecRun('kafka-producer-perf-test', c, (i + 1) * 10 * scale, 50),
      codecRun('minnow perf produce', c, (i + 1) * 20 * scale, 80, { wirePerRecordByte: 0.25 }),
    ]),
    startupMs: 1000,
    idleRssBytes: 60 * 1024 * 1024,
    peakRssBytes: 100 * 1024 * 1024,
    peakAnonBytes: 50 * 1024 * 1024,
  });
  const CODEC_SCENARIO: PeerScenario = {
    id: 'codecs',
    title: 'Compressed produce',
    load: 'the load',
    results: [codecResult('minnow', 2), codecResult('kafka-small', 1)],
  };

  it('runs every codec with both tools, long enough a run and never a count of zero', () => {
    for (const quick of [false, true]) {
      const plan = codecPlan(quick);
      expect(plan.map((r) => r.codec)).toEqual(['gzip', 'snappy', 'lz4', 'zstd']);
      for (const r of plan) {
        expect(Number.isInteger(r.kptRecords) && r.kptRecords > 0).toBe(true);
        expect(r.minnowSeconds).toBeGreaterThanOrEqual(quick ? 1 : 5);
      }
    }
    expect(codecPlan(true)[0]!.kptRecords).toBeLessThan(codecPlan(false)[0]!.kptRecords);
  });

  it('turns % of a core at MB/s into ms of CPU per MB', () => {
    expect(cpuMsPerMb({ brokerCpuPercent: 50, mbPerSec: 100 })).toBe(5); // 0.5 s of CPU a second for 100 MB
    expect(cpuMsPerMb({ brokerCpuPercent: 50, mbPerSec: 0 })).toBeNaN();
  });

  it('has per codec and tool MB/s, broker CPU and CPU per MB with minnow ÷ Kafka, for the two brokers it ran on', () => {
    const lines = renderScenarioTable(CODEC_SCENARIO, PEERS).split('\n');
    expect(lines[0]).toBe('|  | minnow | Kafka, 256m heap | minnow ÷ Kafka, 256m heap |');
    expect(lines).toContain(
      '| gzip, kafka-producer-perf-test: MB/s of records, uncompressed (records/s) | 20.0 (20,480) | 10.0 (10,240) | 2.00× |',
    );
    expect(lines).toContain('| zstd, minnow perf produce: broker CPU, % of a core | 80 % | 80 % | 1.00× |');
    // 80 % of a core at 160 MB/s: 5 ms per MB; at 80 MB/s: 10.
    expect(lines).toContain('| zstd, minnow perf produce: broker CPU per MB of records, ms | 5.0 | 10.0 | 0.50× |');
    expect(lines).toContain("| lz4, kafka-producer-perf-test: the tool's own CPU, % of a core | 90 % | 90 % |  |");
    expect(lines).toContain(
      '| snappy, minnow perf produce: batch bytes on the wire per record byte | 0.250 | 0.250 |  |',
    );
    expect(lines.filter((l) => l.includes('MB/s of records'))).toHaveLength(8);
  });

  it('gives the summary a row per codec and leaves it out when the scenario did not run', () => {
    const summary = renderReadmeSummary({ ...results, scenarios: [SEED, CODEC_SCENARIO] });
    expect(summary).toContain(
      '| compressed produce lz4 MB/s, kafka-producer-perf-test | 60.0 | – | 30.0 | – | 2.00× |',
    );
    expect(renderReadmeSummary({ ...results, scenarios: [SEED] })).not.toContain('compressed produce');
  });

  it("joins a broker's per-codec sessions into one column: every run, the largest memory and start-up", () => {
    const [a, b] = [codecResult('minnow', 1), codecResult('minnow', 2)];
    const joined = mergeCodecResults([
      { ...a, runs: a.runs.slice(0, 2), peakRssBytes: 5, startupMs: 300 },
      { ...b, runs: b.runs.slice(2, 4), peakRssBytes: 9, startupMs: 200 },
    ]);
    expect(joined.runs.map((r) => r.codec)).toEqual(['gzip', 'gzip', 'snappy', 'snappy']);
    expect(joined).toMatchObject({ peer: 'minnow', peakRssBytes: 9, startupMs: 300 });
  });

  it('--only takes a list of scenarios, in the order a whole run has them, and refuses others', () => {
    expect(parseOnly('codecs')).toEqual(['codecs']);
    expect(parseOnly('codecs,seed')).toEqual(['seed', 'codecs']);
    expect(parseOnly('consume')).toEqual(['max1k']);
    expect(() => parseOnly('codec')).toThrow(/--only codec: expected a comma-separated list of seed, capacity/);
    expect(() => parseOnly(',')).toThrow(/--only/);
  });
});
