// kcat (librdkafka 2.0.2) against the broker on both engines: metadata, produce and consume with
// every codec, offsets query.
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { Engine, kcat, startTestBroker, storageUrlFor, tempDir } from './helpers';

describeWithTools('kcat').each<Engine>(['memory', 'sqlite'])('kcat against %s storage', (engine) => {
  let broker: RunningBroker;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir));
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('lists metadata (-L) with this broker as leader', async () => {
    await kcat(broker, ['-P', '-t', 'meta-topic'], { input: 'x\n' });
    const r = await kcat(broker, ['-L', '-J']);
    expect(r.code).toBe(0);
    const md = JSON.parse(r.stdout);
    expect(md.brokers).toEqual([{ id: 1, name: `127.0.0.1:${broker.port}` }]);
    const t = md.topics.find((x: { topic: string }) => x.topic === 'meta-topic');
    expect(t.partitions).toEqual([expect.objectContaining({ partition: 0, leader: 1 })]);
  });

  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'])('produces and consumes with %s compression', async (codec) => {
    const topic = `codec-${codec}`;
    // Created first: kcat waits ~1 s for an auto-created topic (librdkafka's next topic scan after
    // the first Metadata's UNKNOWN_TOPIC_OR_PARTITION); the metadata test above covers that path.
    await broker.context.storage.createTopic(topic, 1, {});
    const lines = Array.from({ length: 500 }, (_, i) => `${codec} message ${i} ${'x'.repeat(i % 50)}`);
    const p = await kcat(broker, ['-P', '-t', topic, '-z', codec, '-X', 'linger.ms=5'], {
      input: lines.join('\n') + '\n',
    });
    expect(p.stderr).not.toMatch(/ERROR|failed/i);
    expect(p.code).toBe(0);
    const c = await kcat(broker, ['-C', '-t', topic, '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(c.code).toBe(0);
    expect(c.stdout.trimEnd().split('\n')).toEqual(lines);
    // librdkafka silently sends uncompressed when it thinks the broker can't take the codec
    // (docs/clients.md), and for a batch compression would not shrink: check what was stored.
    const stored = (await broker.context.storage.read(topic, 0, 0, 1 << 30)).batches;
    const id = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 }[codec]!;
    const codecs = stored.map((b) => b.readInt16BE(21) & 7);
    expect(codecs).toContain(id);
    expect(codecs.every((c) => c === id || c === 0)).toBe(true);
  });

  it('answers offset queries (-Q) by timestamp and keys/partitions round-trip', async () => {
    const before = Date.now() - 1;
    await broker.context.storage.createTopic('offsets-topic', 1, {});
    await kcat(broker, ['-P', '-t', 'offsets-topic', '-K', ':'], { input: 'a:1\nb:2\nc:3\n' });
    const q = await kcat(broker, ['-Q', '-t', `offsets-topic:0:${before}`]);
    expect(q.code).toBe(0);
    expect(q.stdout).toMatch(/offsets-topic \[0\]\s+offset 0/);
    const future = await kcat(broker, ['-Q', '-t', `offsets-topic:0:${Date.now() + 3_600_000}`]);
    expect(future.stdout).toMatch(/offsets-topic \[0\]\s+offset -1/);
    const c = await kcat(broker, ['-C', '-t', 'offsets-topic', '-o', 'beginning', '-e', '-f', '%k=%s@%o\n']);
    expect(c.stdout.trim().split('\n')).toEqual(['a=1@0', 'b=2@1', 'c=3@2']);
  });
});
