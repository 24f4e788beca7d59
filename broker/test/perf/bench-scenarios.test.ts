// The harness's pure scenario pieces (broker/bench/load-args.ts): the load each scenario offers
// as `minnow perf` arguments, the seed run chosen, and the floor loads derived from it.
import { medianRead } from '../../bench/peer-scenarios';
import type { ToolFigures } from '../../bench/peers-report';
import { maxRateArgs, medianByP99, pacedArgs, produceArgs, seedFloorLoad } from '../../bench/load-args';
import { parseProduceArgs } from '../../src/perf/options';
import type { ProduceOptions } from '../../src/perf/options';
import type { ProduceSummary } from '../../src/perf/producer';

const parsed = (args: (string | number)[]): ProduceOptions => {
  const o = parseProduceArgs(args.map(String), {});
  if (o === 'help') throw new Error('expected options, got help');
  return o;
};

const summary = (over: Partial<ProduceSummary> & { p99Ms?: number }): ProduceSummary =>
  ({
    requests: 0,
    elapsedMs: 1000,
    wireBytes: 0,
    ...over,
    latency: { p99Ms: over.p99Ms ?? 0 },
  }) as unknown as ProduceSummary;

describe('load arguments', () => {
  const config = { name: 'c', batchSize: 262144, producers: 2 };

  it('a maximum-rate run: the client config, acks=all, unlimited for a duration; --noop without a broker', () => {
    const o = parsed(produceArgs('127.0.0.1:1', 'max-0', 1024, config, maxRateArgs(8)));
    expect(o).toMatchObject({
      bootstrap: '127.0.0.1:1',
      topic: 'max-0',
      recordSize: 1024,
      batchSizeBytes: 262144,
      producers: 2,
      acks: -1,
      throughput: -1,
      durationMs: 8000,
      numRecords: undefined,
      noop: false,
      reportIntervalMs: 3_600_000,
    });
    const noop = parsed(
      produceArgs(null, 'codec-lz4', '/tmp/logs.txt', config, [...maxRateArgs(3), '--compression', 'lz4']),
    );
    expect(noop).toMatchObject({ noop: true, payloadFile: '/tmp/logs.txt', recordSize: undefined, compression: 3 });
  });

  it('a paced run: 1 KiB at the rate, by count or by time, with extra flags', () => {
    expect(parsed(pacedArgs('h:1', 'seed', { numRecords: 35_000 }, 7000, '5s'))).toMatchObject({
      topic: 'seed',
      numRecords: 35_000,
      durationMs: undefined,
      recordSize: 1024,
      throughput: 7000,
      acks: -1,
      reportIntervalMs: 5000,
    });
    const sweep = parsed(pacedArgs('h:1', 'sweep-1000', { durationS: 6 }, 1000, '1h', ['--warmup-records', 1000]));
    expect(sweep).toMatchObject({ durationMs: 6000, numRecords: undefined, warmupRecords: 1000, throughput: 1000 });
  });
});

describe('medianByP99', () => {
  it('picks the run with the median p99, whatever the order', () => {
    const runs = [40, 10, 25].map((p99Ms) => ({ summary: summary({ p99Ms }), id: p99Ms }));
    expect(medianByP99(runs).id).toBe(25);
    expect(medianByP99([runs[1]!]).id).toBe(10);
    expect(() => medianByP99([])).toThrow('no runs');
  });
});

describe('seedFloorLoad', () => {
  it("paces raw SQLite at the broker's own commits, the socket floor at the requests", () => {
    const seed = summary({ requests: 5000, elapsedMs: 10_000, wireBytes: 5_000_000 });
    expect(seedFloorLoad(seed, 2000)).toEqual({
      requestsPerSec: 500,
      commitsPerSec: 200,
      bytesPerCommit: 2500,
      requestBytes: 1080,
    });
  });

  it('without a commit count, one commit per request', () => {
    const seed = summary({ requests: 5000, elapsedMs: 10_000, wireBytes: 5_000_000 });
    expect(seedFloorLoad(seed, undefined)).toMatchObject({ commitsPerSec: 500, bytesPerCommit: 1000 });
  });
});

describe('medianRead', () => {
  const read = (mbPerSec: number, brokerCpuPercent: number): ToolFigures => ({
    tool: 'minnow perf consume',
    records: 500_000,
    recordsPerSec: mbPerSec * 1024,
    mbPerSec,
    p50Ms: NaN,
    p99Ms: NaN,
    p999Ms: NaN,
    brokerCpuPercent,
    toolCpuPercent: 80,
    missing: 0,
  });

  it("is the read with the median MB/s, with that read's CPU", () => {
    expect(medianRead([read(550, 61), read(310, 90), read(620, 58)])).toEqual(read(550, 61));
    expect(medianRead([read(400, 70)])).toEqual(read(400, 70));
    expect(() => medianRead([])).toThrow(/no reads/);
  });
});
