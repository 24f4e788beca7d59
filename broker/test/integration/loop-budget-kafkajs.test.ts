// Issue 29, checked with a real client (kafkajs 2.2.4): answers encoded in slices (2,000 topics
// created, then listed and described) are whole and right, and a large compressed batch that is
// inflated off the event loop is stored and read back intact.
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const TOPICS = 2000;

describe('kafkajs against answers encoded in slices and batches inflated off the loop', () => {
  const tmp = tempDir('minnow-loop-budget-');
  let broker: RunningBroker;
  let kafka: Kafka;
  beforeAll(async () => {
    // Groups form at once (the reader is its group's only member: it waited the 3 s initial delay).
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir), { config: { groupInitialRebalanceDelayMs: 0 } });
    kafka = new Kafka({
      clientId: 'loop-budget',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
      requestTimeout: 120_000,
    });
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('creates 2,000 topics in one request, then lists and describes every one', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const names = Array.from({ length: TOPICS }, (_, i) => `many-${String(i).padStart(4, '0')}`);
      const created = await admin.createTopics({
        topics: names.map((topic) => ({ topic, numPartitions: 2 })),
        timeout: 120_000,
      });
      expect(created).toBe(true);
      expect((await admin.listTopics()).filter((t) => t.startsWith('many-')).sort()).toEqual(names);
      const described = await admin.fetchTopicMetadata({ topics: names });
      expect(described.topics).toHaveLength(TOPICS);
      expect(described.topics.every((t) => t.partitions.length === 2)).toBe(true);
    } finally {
      await admin.disconnect();
    }
  });

  it('stores a gzip batch of 3.2 MB of records (inflated off the loop) and reads it back', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'big-gzip' }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const values = Array.from({ length: 8 }, (_, i) => Buffer.alloc(400_000, 97 + i));
    await producer.send({
      topic: 'big-gzip',
      compression: CompressionTypes.GZIP,
      messages: values.map((value, i) => ({ key: `k${i}`, value })),
    });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: 'big-gzip-reader', maxBytes: 16 << 20 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'big-gzip', fromBeginning: true });
    const seen: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            seen.push(message.value!);
            if (seen.length === values.length) resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();
    // Each record byte for byte, in order, by Buffer.equals: jest's toEqual walked the 3.2 MB one
    // byte at a time (~17 s of CPU).
    expect(seen.map((b, i) => ({ bytes: b.length, same: b.equals(values[i]!) }))).toEqual(
      values.map((v) => ({ bytes: v.length, same: true })),
    );
  });
});
