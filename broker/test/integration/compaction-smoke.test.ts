// Compaction end to end (issue 17): kafkajs produces keyed updates (plain and gzip) to a
// cleanup.policy=compact topic, the broker's cleaner (short LOG_CLEANER_BACKOFF_MS) compacts it,
// and kcat reading from the beginning sees the latest value per key at the offsets they were
// written at; ListOffsets still answers; a record without a key is refused with INVALID_RECORD.
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { Engine, kcat, startTestBroker, storageUrlFor, tempDir } from './helpers';

const KEYS = 5;
const ROUNDS = 8;

describe.each<Engine>(['memory', 'sqlite'])('compaction against %s storage', (engine) => {
  let broker: RunningBroker;
  let kafka: Kafka;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir), { config: { logCleanerBackoffMs: 50 } });
    kafka = new Kafka({
      clientId: 'minnow-compaction-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('a consumer from the beginning sees the latest value per key, offsets preserved', async () => {
    const topic = 'compacted';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'min.compaction.lag.ms', value: '0' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
          ],
        },
      ],
    });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const latest = new Map<string, { offset: number; value: string }>();
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < KEYS; k++) {
        const value = `v${round}-${k}`;
        const [res] = await producer.send({
          topic,
          compression: round % 2 ? CompressionTypes.GZIP : CompressionTypes.None,
          messages: [{ key: `key${k}`, value }],
        });
        latest.set(`key${k}`, { offset: Number(res!.baseOffset), value });
      }
    }
    // The batch holding the last offset is never cleaned (Kafka's active segment): end with a marker key.
    const [tail] = await producer.send({ topic, messages: [{ key: 'tail', value: 'end' }] });
    latest.set('tail', { offset: Number(tail!.baseOffset), value: 'end' });

    // A record without a key is refused (LogValidator.validateKey).
    await expect(producer.send({ topic, messages: [{ value: 'no key' }] })).rejects.toMatchObject({
      type: 'INVALID_RECORD',
    });
    await producer.disconnect();

    // Wait (bounded) for the cleaner's pass to cover everything below the tail.
    for (let i = 0; i < 200; i++) {
      const state = await broker.context.storage.cleanerState(topic, 0, Date.now());
      if (state && state.cleanOffset >= latest.get('tail')!.offset) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const state = (await broker.context.storage.cleanerState(topic, 0, Date.now()))!;
    expect(state.cleanOffset).toBe(latest.get('tail')!.offset);
    expect(state.lastBytesAfter).toBeLessThan(state.lastBytesBefore);

    const out = await kcat(broker, ['-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%o %k %s\\n']);
    expect(out.code).toBe(0);
    const seen = out.stdout.trim().split('\n');
    const expected = [...latest.entries()]
      .sort((a, b) => a[1].offset - b[1].offset)
      .map(([key, { offset, value }]) => `${offset} ${key} ${value}`);
    expect(seen).toEqual(expected);

    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets[0]).toMatchObject({ low: '0', high: String(KEYS * ROUNDS + 1) });
    await admin.disconnect();
  });
});
