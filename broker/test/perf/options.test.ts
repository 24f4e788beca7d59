import { UsageError } from '../../src/args';
import { CompressionType } from '../../src/protocol/compression';
import {
  joinNegativeValues,
  parseAcks,
  parseConsumeArgs,
  parseDuration,
  parseE2eArgs,
  parseProduceArgs,
  parseProps,
  ProduceOptions,
} from '../../src/perf/options';

const env = {};
const produce = (...args: string[]) => parseProduceArgs(args, env) as ProduceOptions;
const base = ['--topic', 't', '--num-records', '100', '--record-size', '10'];

describe('parseDuration', () => {
  it.each([
    ['60s', 60_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['1.5s', 1500],
    ['90', 90_000],
  ])('%s is %d ms', (raw, ms) => expect(parseDuration('duration', raw)).toBe(ms));

  it('reads a bare number in the unit asked for', () => expect(parseDuration('fetch-max-wait', '500', 'ms')).toBe(500));

  it.each(['', '5x', '-1s', '0s', 's', '1 m'])('rejects %j with the flag and examples', (raw) => {
    expect(() => parseDuration('duration', raw)).toThrow(UsageError);
    expect(() => parseDuration('duration', raw)).toThrow(/--duration/);
  });
});

describe('parseAcks', () => {
  it('maps all to -1 and keeps 0, 1, -1', () => {
    expect(parseAcks('all')).toBe(-1);
    expect(parseAcks('-1')).toBe(-1);
    expect(parseAcks('0')).toBe(0);
    expect(parseAcks('1')).toBe(1);
  });
  it('rejects anything else', () => expect(() => parseAcks('2')).toThrow('--acks 2: expected 0, 1 or all'));
});

describe('parseProduceArgs', () => {
  it('has kafka-producer-perf-test defaults', () => {
    const o = produce(...base);
    expect(o).toMatchObject({
      topic: 't',
      numRecords: 100,
      durationMs: undefined,
      recordSize: 10,
      throughput: -1,
      clients: 1,
      producers: 5,
      acks: -1,
      batchSizeBytes: 16384,
      lingerMs: 0,
      compression: CompressionType.None,
      keys: 0,
      idempotent: false,
      warmupRecords: 0,
      reportIntervalMs: 5000,
      noop: false,
      graphite: undefined,
      bootstrap: 'localhost:9092',
    });
  });

  it('takes "--throughput -1" as Kafka tools write it', () => {
    expect(produce(...base, '--throughput', '-1').throughput).toBe(-1);
    expect(produce(...base, '--throughput', '7000').throughput).toBe(7000);
    expect(joinNegativeValues(['--throughput', '-1', '--acks', '-1', '-h'])).toEqual([
      '--throughput=-1',
      '--acks=-1',
      '-h',
    ]);
  });

  it('reads every option', () => {
    const o = produce(
      '--topic',
      'x',
      '--duration',
      '5m',
      '--payload-file',
      '/dev/null',
      '--payload-delimiter',
      ',',
      '--throughput',
      '7000',
      '--clients',
      '2',
      '--producers',
      '3',
      '--acks',
      '1',
      '--batch-size',
      '1000',
      '--linger-ms',
      '5',
      '--compression',
      'zstd',
      '--keys',
      '10',
      '--warmup-records',
      '50',
      '--report-interval',
      '2s',
      '--noop',
      '--graphite',
      'g.example:2003',
      '--graphite-prefix',
      'lab.minnow',
      '--json',
      'out.json',
      '--partitions',
      '4',
      '--bootstrap-server',
      'b:1',
    );
    expect(o).toMatchObject({
      durationMs: 300_000,
      numRecords: undefined,
      payloadFile: '/dev/null',
      payloadDelimiter: ',',
      recordSize: undefined,
      throughput: 7000,
      clients: 2,
      producers: 3,
      acks: 1,
      batchSizeBytes: 1000,
      lingerMs: 5,
      compression: CompressionType.Zstd,
      keys: 10,
      warmupRecords: 50,
      reportIntervalMs: 2000,
      noop: true,
      graphite: { host: 'g.example', port: 2003 },
      graphitePrefix: 'lab.minnow',
      jsonFile: 'out.json',
      partitions: 4,
      bootstrap: 'b:1',
    });
  });

  it('rejects mutually exclusive options with a clear message', () => {
    expect(() => produce('--topic', 't', '--num-records', '1', '--duration', '1s', '--record-size', '1')).toThrow(
      '--num-records and --duration are mutually exclusive: give one',
    );
    expect(() => produce('--topic', 't', '--num-records', '1', '--record-size', '1', '--payload-file', 'f')).toThrow(
      '--record-size and --payload-file are mutually exclusive: give one',
    );
  });

  it('asks for what is missing', () => {
    expect(() => produce('--num-records', '1', '--record-size', '1')).toThrow(/--topic is required/);
    expect(() => produce('--topic', 't', '--record-size', '1')).toThrow('give --num-records N or --duration 60s');
    expect(() => produce('--topic', 't', '--num-records', '1')).toThrow('give --record-size B or --payload-file F');
  });

  it('rejects bad values and combinations', () => {
    expect(() => produce(...base, '--throughput', '0')).toThrow(
      '--throughput 0: expected an integer >= 1 (or -1 for unlimited)',
    );
    expect(() => produce(...base, '--acks', 'some')).toThrow(UsageError);
    expect(() => produce(...base, '--compression', 'brotli')).toThrow(
      '--compression brotli: expected none|gzip|snappy|lz4|zstd',
    );
    expect(() => produce(...base, '--clients', '0')).toThrow('--clients 0: expected an integer >= 1');
    expect(() => produce(...base, '--graphite', 'nohost')).toThrow('--graphite nohost: expected HOST:PORT');
    expect(() => produce(...base, '--graphite-prefix', 'p')).toThrow('--graphite-prefix needs --graphite HOST:PORT');
    expect(() => produce(...base, '--warmup-records', '100')).toThrow(
      '--warmup-records 100 must be less than --num-records 100',
    );
    expect(() => produce(...base, '--idempotent', '--acks', '1')).toThrow(/--idempotent needs --acks all/);
    expect(() => produce(...base, '--payload-delimiter', ',')).toThrow('--payload-delimiter needs --payload-file');
    expect(() => produce(...base, '--no-such-flag')).toThrow(UsageError);
  });

  it('takes --producer-props with Java names; flags win; unused keys are listed', () => {
    const o = produce(
      ...base,
      '--producer-props',
      'bootstrap.servers=h:9 acks=1',
      'batch.size=999,linger.ms=7',
      'compression.type=lz4',
      'buffer.memory=1',
      '--linger-ms',
      '3',
    );
    expect(o).toMatchObject({
      bootstrap: 'h:9',
      acks: 1,
      batchSizeBytes: 999,
      lingerMs: 3,
      compression: CompressionType.Lz4,
      ignoredProps: ['buffer.memory'],
    });
    expect(produce(...base, '--producer-props', 'enable.idempotence=true').idempotent).toBe(true);
    expect(() => parseProps('producer-props', ['novalue'])).toThrow('--producer-props novalue: expected KEY=VALUE');
    expect(() => produce(...base, 'stray')).toThrow('unexpected argument "stray"');
  });

  it('falls back to MINNOW_BOOTSTRAP_SERVER', () => {
    expect((parseProduceArgs(base, { MINNOW_BOOTSTRAP_SERVER: 'e:7' }) as ProduceOptions).bootstrap).toBe('e:7');
  });

  it('answers --help', () => expect(parseProduceArgs(['--help'], env)).toBe('help'));
});

describe('parseConsumeArgs and parseE2eArgs', () => {
  it('consume defaults and aliases', () => {
    expect(parseConsumeArgs(['--topic', 't'], env)).toMatchObject({
      topic: 't',
      numRecords: undefined,
      group: undefined,
      fetchSizeBytes: 1048576,
      timeoutMs: 10_000,
      fromLatest: false,
      showDetailedStats: false,
    });
    expect(parseConsumeArgs(['--topic', 't', '--messages', '5', '--group', 'g', '--timeout', '2s'], env)).toMatchObject(
      { numRecords: 5, group: 'g', timeoutMs: 2000 },
    );
    expect(() => parseConsumeArgs(['--topic', 't', '--messages', '5', '--num-records', '5'], env)).toThrow(
      '--num-records and --messages are the same option: give one',
    );
    expect(() => parseConsumeArgs(['--topic', 't', '--report-interval', '1s'], env)).toThrow(
      '--report-interval needs --show-detailed-stats',
    );
    expect(() => parseConsumeArgs([], env)).toThrow(/--topic is required/);
  });

  it('e2e defaults and checks', () => {
    expect(parseE2eArgs(['--topic', 't'], env)).toMatchObject({
      numRecords: 1000,
      recordSize: 100,
      acks: -1,
      warmupRecords: 0,
      timeoutMs: 10_000,
    });
    expect(() => parseE2eArgs(['--topic', 't', '--acks', '0'], env)).toThrow(/--acks 0 cannot be used/);
    expect(() => parseE2eArgs(['--topic', 't', '--num-records', '5', '--warmup-records', '5'], env)).toThrow(
      '--warmup-records 5 must be less than --num-records 5',
    );
  });
});
