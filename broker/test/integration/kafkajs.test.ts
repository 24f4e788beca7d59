// kafkajs 2.2.4 against the broker: admin, auto-creation, gzip produce/consume, an idempotent producer.
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { MetadataResponse } from '../../src/protocol/messages';
import { Engine, startTestBroker, storageUrlFor, tempDir, engineOf } from './helpers';

// Group tests run with no initial rebalance delay (Kafka's 3000 ms is the broker default) to stay fast.
const NO_DELAY = 0;

describe.each<Engine>(['memory', 'sqlite'])('kafkajs against %s storage', (engine) => {
  let broker: RunningBroker;
  let kafka: Kafka;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir), {
      config: { groupInitialRebalanceDelayMs: NO_DELAY },
    });
    kafka = new Kafka({
      clientId: 'minnow-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('creates, lists, describes and deletes topics with the admin client', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(
        await admin.createTopics({
          topics: [
            { topic: 'admin-a', numPartitions: 3 },
            { topic: 'admin-b', configEntries: [{ name: 'retention.ms', value: '60000' }] },
          ],
        }),
      ).toBe(true);
      expect(await admin.listTopics()).toEqual(expect.arrayContaining(['admin-a', 'admin-b']));
      const md = await admin.fetchTopicMetadata({ topics: ['admin-a'] });
      expect(md.topics[0]!.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);
      const cfg = await admin.describeConfigs({ resources: [{ type: 2, name: 'admin-b' }], includeSynonyms: false });
      const entries = Object.fromEntries(cfg.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
      expect(entries['retention.ms']).toBe('60000');
      expect(entries['cleanup.policy']).toBe('delete');
      await expect(admin.createTopics({ topics: [{ topic: 'admin-c', replicationFactor: 3 }] })).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_REPLICATION_FACTOR' })],
      });
      await admin.deleteTopics({ topics: ['admin-a'] });
      const left = await admin.listTopics();
      expect(left).toContain('admin-b');
      expect(left).not.toContain('admin-a');
    } finally {
      await admin.disconnect();
    }
  });

  it('re-creates a deleted topic for a producer, answering the first Metadata without it as Kafka 4 does', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'deleted-then-used' }] });
    await admin.deleteTopics({ topics: ['deleted-then-used'] });
    await admin.disconnect();
    // kafka-go's delete-topics tests: Metadata v6 with auto-creation, no partitions expected.
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const md: MetadataResponse = await conn.send(ApiKey.Metadata, 6, {
        topics: [{ name: 'deleted-then-used' }],
        allowAutoTopicCreation: true,
      });
      expect(md.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([
        ['deleted-then-used', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0],
      ]);
    } finally {
      conn.close();
    }
    // kafkajs retries that answer; an auto-creating producer's first send to a new topic goes through.
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic: 'deleted-then-used', messages: [{ value: 'again' }] });
    await producer.send({ topic: 'never-created', messages: [{ value: 'first' }] });
    await producer.disconnect();
    expect(engineOf(broker).read('never-created', 0, 0, 1 << 30).batches.length).toBe(1);
  });

  it('produces gzip batches and consumes them back with their keys and headers', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'gzip-topic', numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const messages = Array.from({ length: 200 }, (_, i) => ({
      key: `k${i % 7}`,
      value: `value-${i}`,
      headers: { n: String(i) },
    }));
    await producer.send({ topic: 'gzip-topic', compression: CompressionTypes.GZIP, messages });
    await producer.disconnect();
    const stored = [0, 1].flatMap((p) => engineOf(broker).read('gzip-topic', p, 0, 1 << 30).batches);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((b) => (b.readInt16BE(21) & 7) === 1)).toBe(true);

    const seen = await consumeAll(kafka, 'gzip-topic', messages.length);
    expect(seen.map((m) => m.value).sort()).toEqual(messages.map((m) => m.value).sort());
    expect(seen.find((m) => m.value === 'value-42')).toEqual({ key: 'k0', value: 'value-42', n: '42' });
  });

  it('runs an idempotent producer: InitProducerId, sequences, no duplicates', async () => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic: 'idem-topic', messages: [{ value: `idem-${i}` }], acks: -1 });
    }
    await producer.disconnect();
    const batches = engineOf(broker).read('idem-topic', 0, 0, 1 << 30).batches;
    expect(batches.length).toBe(5);
    expect(batches.map((b) => b.readBigInt64BE(43) >= 0n)).toEqual([true, true, true, true, true]);
    expect(batches.map((b) => b.readInt32BE(53))).toEqual([0, 1, 2, 3, 4]);
    const seen = await consumeAll(kafka, 'idem-topic', 5);
    expect(seen.map((m) => m.value)).toEqual(['idem-0', 'idem-1', 'idem-2', 'idem-3', 'idem-4']);
  });
});

/** Reads `count` messages with a plain (group-less) consumer pass over every partition from the start. */
async function consumeAll(
  kafka: Kafka,
  topic: string,
  count: number,
): Promise<{ key: string | null; value: string; n?: string }[]> {
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${Date.now()}` });
  const seen: { key: string | null; value: string; n?: string }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${seen.length} of ${count} messages within 20 s`)), 20_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const m: { key: string | null; value: string; n?: string } = {
            key: message.key?.toString() ?? null,
            value: message.value!.toString(),
          };
          if (message.headers?.n) m.n = message.headers.n.toString();
          seen.push(m);
          if (seen.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
