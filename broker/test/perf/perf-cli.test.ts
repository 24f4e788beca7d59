// `minnow perf produce|consume|e2e` against an in-process broker on 127.0.0.1:0 (memory://):
// the summaries must agree with each other and with what the broker stored. No timing assertions.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perfCommand } from '../../src/cli/perf';
import { UsageError } from '../../src/args';
import { captureIo } from './capture-io';
import { RunningBroker, startBroker } from '../../src/server/broker';
import { silentLogger } from '../../src/logger';

// Group tests run with no initial rebalance delay (Kafka's 3000 ms is the broker default) to stay fast.
const NO_DELAY = 0;

describe('minnow perf against an in-process broker', () => {
  let broker: RunningBroker;
  let bootstrap: string;
  const dir = mkdtempSync(join(tmpdir(), 'minnow-perf-'));

  beforeAll(async () => {
    broker = await startBroker({
      logger: silentLogger,
      config: {
        listeners: [{ host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
        storageUrl: 'memory://',
        groupInitialRebalanceDelayMs: NO_DELAY,
      },
    });
    bootstrap = `127.0.0.1:${broker.port}`;
  });
  afterAll(async () => {
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('produces 2,000 records unthrottled, and consume reads back the same count and bytes', async () => {
    const io = captureIo();
    const json = join(dir, 'produce.json');
    const code = await perfCommand(
      [
        'produce',
        '--bootstrap-server',
        bootstrap,
        '--topic',
        'perf',
        '--num-records',
        '2000',
        '--record-size',
        '100',
        '--throughput',
        '-1',
        '--batch-size',
        '4096',
        '--json',
        json,
      ],
      io,
    );
    expect(code).toBe(0);
    const p = JSON.parse(readFileSync(json, 'utf8'));
    expect(p).toMatchObject({ records: 2000, bytes: 200_000, errors: 0, abandoned: 0, acks: -1 });
    expect(p.latency.count).toBe(2000);
    expect(p.requests).toBeGreaterThanOrEqual(Math.ceil(2000 / 38)); // 4 KiB batches hold 38 records of 100 B
    expect(p.wireBytes).toBeGreaterThan(p.bytes);
    const final = io.lines[io.lines.length - 1]!;
    expect(final).toMatch(
      /^2000 records sent, [\d.]+ records\/sec \([\d.]+ MB\/sec\), [\d.]+ ms avg latency, [\d.]+ ms max latency, [\d.]+ ms 50th, [\d.]+ ms 95th, [\d.]+ ms 99th, [\d.]+ ms 99\.9th\.$/,
    );
    expect(final).toBe(p.finalLine);
    expect(await broker.context.storage.offsets('perf', 0)).toEqual({ logStartOffset: 0, highWatermark: 2000 });

    const cio = captureIo();
    const cjson = join(dir, 'consume.json');
    expect(
      await perfCommand(['consume', '--bootstrap-server', bootstrap, '--topic', 'perf', '--json', cjson], cio),
    ).toBe(0);
    const c = JSON.parse(readFileSync(cjson, 'utf8'));
    expect(c).toMatchObject({ records: 2000, bytes: 200_000, mode: 'assignment', timedOut: false, rebalanceMs: 0 });
    expect(c.wireBytes).toBe(p.wireBytes);
    expect(cio.lines[0]).toBe(
      'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    const cols = cio.lines[1]!.split(', ');
    expect(cols).toHaveLength(10);
    expect(cols[2]).toBe((200_000 / 1048576).toFixed(4));
    expect(cols[4]).toBe('2000');
  });

  it('consumes in a group (rebalance time measured, offsets committed), then resumes from the commit', async () => {
    const io = captureIo();
    await perfCommand(
      [
        'produce',
        '--bootstrap-server',
        bootstrap,
        '--topic',
        'grp',
        '--num-records',
        '500',
        '--record-size',
        '10',
        '--partitions',
        '3',
        '--keys',
        '50',
        '--report-interval',
        '1h',
      ],
      io,
    );
    const first = join(dir, 'g1.json');
    await perfCommand(
      ['consume', '--bootstrap-server', bootstrap, '--topic', 'grp', '--group', 'perf-g', '--json', first],
      captureIo(),
    );
    const g1 = JSON.parse(readFileSync(first, 'utf8'));
    expect(g1).toMatchObject({ mode: 'group', records: 500, bytes: 500 * 10 + g1.bytes - 5000, partitions: [0, 1, 2] });
    expect(g1.bytes).toBeGreaterThan(5000); // keys "0".."49" are counted too
    await perfCommand(
      [
        'produce',
        '--bootstrap-server',
        bootstrap,
        '--topic',
        'grp',
        '--num-records',
        '100',
        '--record-size',
        '10',
        '--report-interval',
        '1h',
      ],
      captureIo(),
    );
    const second = join(dir, 'g2.json');
    await perfCommand(
      ['consume', '--bootstrap-server', bootstrap, '--topic', 'grp', '--group', 'perf-g', '--json', second],
      captureIo(),
    );
    expect(JSON.parse(readFileSync(second, 'utf8'))).toMatchObject({ mode: 'group', records: 100, bytes: 1000 });
  });

  it('rate-limits, compresses, uses idempotent sequences and reports per interval', async () => {
    const io = captureIo();
    const json = join(dir, 'rated.json');
    await perfCommand(
      [
        'produce',
        '--bootstrap-server',
        bootstrap,
        '--topic',
        'rated',
        '--num-records',
        '300',
        '--record-size',
        '200',
        '--throughput',
        '1000',
        '--compression',
        'lz4',
        '--idempotent',
        '--report-interval',
        '100ms',
        '--warmup-records',
        '50',
        '--json',
        json,
      ],
      io,
    );
    const p = JSON.parse(readFileSync(json, 'utf8'));
    expect(p).toMatchObject({ records: 250, bytes: 250 * 200, warmupRecords: 50, errors: 0 });
    expect(p.wireBytes).toBeGreaterThan(0);
    const progress = io.lines.filter((l) => / records sent, .* ms max latency\.$/.test(l));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const sent = progress.reduce((s, l) => s + Number(l.split(' ')[0]), 0);
    expect(sent).toBe(300); // the interval lines count warm-up records too
    const c = join(dir, 'rated-c.json');
    await perfCommand(['consume', '--bootstrap-server', bootstrap, '--topic', 'rated', '--json', c], captureIo());
    expect(JSON.parse(readFileSync(c, 'utf8'))).toMatchObject({ records: 300, bytes: 300 * 200 });
  });

  it('measures end-to-end latency and the generator alone (--noop)', async () => {
    const io = captureIo();
    const json = join(dir, 'e2e.json');
    await perfCommand(
      [
        'e2e',
        '--bootstrap-server',
        bootstrap,
        '--topic',
        'e2e',
        '--num-records',
        '50',
        '--record-size',
        '64',
        '--json',
        json,
      ],
      io,
    );
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({ records: 50, recordSize: 64 });
    expect(io.lines[io.lines.length - 2]).toMatch(/^Avg latency: [\d.]+ ms$/);

    const nio = captureIo();
    const njson = join(dir, 'noop.json');
    await perfCommand(
      ['produce', '--noop', '--topic', 'none', '--num-records', '5000', '--record-size', '100', '--json', njson],
      nio,
    );
    expect(JSON.parse(readFileSync(njson, 'utf8'))).toMatchObject({
      noop: true,
      records: 5000,
      bytes: 500_000,
      errors: 0,
    });
    expect(await broker.context.storage.topic('none')).toBeUndefined();
  });

  it('reports usage errors as UsageError (exit 2 in main)', async () => {
    await expect(perfCommand(['produce', '--topic', 't'], captureIo())).rejects.toThrow(UsageError);
    await expect(perfCommand(['bogus'], captureIo())).rejects.toThrow('unknown perf subcommand "bogus"');
    expect(await perfCommand([], captureIo())).toBe(2);
  });
});
