// The Python clients our users reach for, as Debian packages them: kafka-python 2.0.2 and
// confluent-kafka 1.7.0 (librdkafka 2.0.2). .ci/run installs both.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { run, startTestBroker, tempDir } from './helpers';

// Group tests run with no initial rebalance delay (Kafka's 3000 ms is the broker default) to stay fast.
const NO_DELAY = 0;

// Debian's python3 has the Debian packages; a pyenv python3 earlier on PATH does not.
const PYTHON = '/usr/bin/python3';
const script = (name: string) => path.join(__dirname, 'python', name);

describeWithTools('python3-kafka')('python clients', () => {
  let broker: RunningBroker;
  const tmp = tempDir();
  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'py.db')}`, {
      config: { groupInitialRebalanceDelayMs: NO_DELAY },
    });
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('kafka-python produces (gzip) and consumes', async () => {
    const r = await run(PYTHON, [script('kafka_python_roundtrip.py'), `127.0.0.1:${broker.port}`, 'py-kafka', '50'], {
      timeoutMs: 60_000,
    });
    if (r.code !== 0) throw new Error(`kafka-python failed (${r.code}): ${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out.values).toEqual(Array.from({ length: 50 }, (_, i) => `kafka-python ${i}`));
    const codecs = new Set(
      (await broker.context.storage.read('py-kafka', 0, 0, 1 << 30)).batches.map((b) => b.readInt16BE(21) & 7),
    );
    expect([...codecs]).toEqual([1]);
  });

  it('kafka-python admin describes topic configs and alters them back with every value', async () => {
    const r = await run(PYTHON, [script('kafka_python_configs.py'), `127.0.0.1:${broker.port}`, 'py-configs'], {
      timeoutMs: 60_000,
    });
    if (r.code !== 0) throw new Error(`kafka-python admin failed (${r.code}): ${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out.alter).toEqual([[0, null]]);
    expect(Object.keys(out.before)).toHaveLength(33); // Kafka 4's list (3.9's less the three 4.0 removed)
    // Same values; now every one is a topic override (source 1), where it was a default (5).
    const valuesOf = (m: Record<string, [string, number]>) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v[0]]));
    expect(valuesOf(out.after)).toEqual(valuesOf(out.before));
    expect(new Set(Object.values(out.before).map((v) => (v as [string, number])[1]))).toEqual(new Set([5]));
    expect(new Set(Object.values(out.after).map((v) => (v as [string, number])[1]))).toEqual(new Set([1]));
    expect(out.broker.error).toBe(0);
    expect(out.broker.names).toEqual(
      expect.arrayContaining(['log.retention.ms', 'message.max.bytes', 'num.partitions']),
    );
  });

  it('confluent-kafka produces idempotently with zstd and consumes', async () => {
    const r = await run(
      PYTHON,
      [script('confluent_kafka_roundtrip.py'), `127.0.0.1:${broker.port}`, 'py-confluent', '50'],
      { timeoutMs: 60_000 },
    );
    if (r.code !== 0) throw new Error(`confluent-kafka failed (${r.code}): ${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out.errors).toEqual([]);
    expect(out.values).toEqual(Array.from({ length: 50 }, (_, i) => `confluent ${i}`));
    const batches = (await broker.context.storage.read('py-confluent', 0, 0, 1 << 30)).batches;
    expect(batches.every((b) => (b.readInt16BE(21) & 7) === 4 && b.readBigInt64BE(43) >= 0n)).toBe(true);
  });
});
