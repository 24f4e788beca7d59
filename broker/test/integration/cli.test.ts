// The `minnow` CLI against a running broker: topic admin, produce from stdin, consume.
import type { RunningBroker } from '../../src/server/broker';
import { run, startTestBroker } from './helpers';
import { MINNOW } from './serve-child';

describe('minnow CLI', () => {
  let broker: RunningBroker;
  let bootstrap: string;
  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    bootstrap = `127.0.0.1:${broker.port}`;
  });
  afterAll(() => broker.stop());

  const minnow = (args: string[], input?: string) =>
    run('node', [MINNOW, ...args, '--bootstrap-server', bootstrap], { input, timeoutMs: 30_000 });

  it('creates, lists, describes and deletes a topic', async () => {
    const created = await minnow([
      'topic',
      'create',
      'cli-topic',
      '--partitions',
      '3',
      '--config',
      'retention.ms=3600000',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const list = await minnow(['topic', 'list']);
    expect(JSON.parse(list.stdout).map((t: { name: string }) => t.name)).toContain('cli-topic');
    const d = JSON.parse((await minnow(['topic', 'describe', 'cli-topic'])).stdout);
    expect(d.partitions).toHaveLength(3);
    expect(d.configs['retention.ms']).toBe('3600000');
    const dup = await minnow(['topic', 'create', 'cli-topic']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/TOPIC_ALREADY_EXISTS/);
    expect((await minnow(['topic', 'delete', 'cli-topic'])).code).toBe(0);
    expect(JSON.parse((await minnow(['topic', 'list'])).stdout).map((t: { name: string }) => t.name)).not.toContain(
      'cli-topic',
    );
  });

  it('produces stdin lines with keys and consumes them back', async () => {
    await minnow(['topic', 'create', 'lines', '--partitions', '2']);
    const input = Array.from({ length: 50 }, (_, i) => `key${i % 5}:line ${i}`).join('\n') + '\n';
    const p = await minnow(['produce', 'lines', '--key-separator', ':', '--compression', 'snappy'], input);
    expect(p.code).toBe(0);
    expect(p.stderr).toMatch(/produced 50 records/);
    const c = await minnow(['consume', 'lines', '--from-beginning', '--exit-at-end', '--key-separator', ':']);
    expect(c.code).toBe(0);
    expect(c.stdout.trim().split('\n').sort()).toEqual(input.trim().split('\n').sort());
    const one = await minnow(['consume', 'lines', '--partition', '0', '--offset', '0', '--max-messages', '1']);
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('takes --bootstrap-server before the command too (as kcat users type)', async () => {
    await minnow(['topic', 'create', 'global-flag-topic']);
    for (const flag of [['--bootstrap-server', bootstrap], ['-b', bootstrap], [`--bootstrap-server=${bootstrap}`]]) {
      const list = await run('node', [MINNOW, ...flag, 'topic', 'list'], { timeoutMs: 30_000 });
      expect(list.stderr).toBe('');
      expect(JSON.parse(list.stdout).map((t: { name: string }) => t.name)).toContain('global-flag-topic');
    }
    const serve = await run('node', [MINNOW, '-b', bootstrap, 'serve'], { timeoutMs: 30_000 });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/serve does not connect to a broker/);
  });

  it('fails with a one-line reason and a non-zero exit', async () => {
    const r = await run('node', [MINNOW, 'topic', 'describe', 'nope', '--bootstrap-server', bootstrap]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/UNKNOWN_TOPIC_OR_PARTITION/);
    const down = await run('node', [MINNOW, 'topic', 'list', '--bootstrap-server', '127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not connect to 127.0.0.1:1/);
  });
});
