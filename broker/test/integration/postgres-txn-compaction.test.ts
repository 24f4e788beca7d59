// Transactions and compaction end to end on postgres:// (issue 18), against a real PostgreSQL
// (support/postgres-server.ts): kafkajs commits and aborts across partitions and sends offsets in
// a transaction, a read_committed consumer sees only committed records; the broker's cleaner
// compacts a cleanup.policy=compact topic in PostgreSQL and a consumer from the beginning sees the
// latest value per key at the offsets they were written at.
import { Kafka, logLevel } from 'kafkajs';
import type { Consumer, Producer } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { startTestBroker } from './helpers';

jest.setTimeout(60_000);

describeWithTools('postgresql')('transactions and compaction on postgres://', () => {
  let server: PostgresServer;
  let broker: RunningBroker;
  let kafka: Kafka;
  const producers: Producer[] = [];

  beforeAll(async () => {
    server = await postgresServer();
    const url = await server.createDatabase('pgrest_it');
    broker = await startTestBroker(url, {
      config: { groupInitialRebalanceDelayMs: 0, transactionCleanupIntervalMs: 100, logCleanerBackoffMs: 50 },
    });
    kafka = new Kafka({
      clientId: 'minnow-pg-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 50 },
    });
  });
  afterEach(async () => {
    await Promise.all(producers.splice(0).map((p) => p.disconnect()));
  });
  afterAll(async () => {
    await broker?.stop();
    await server?.stop();
  });

  const createTopic = async (
    topic: string,
    numPartitions: number,
    configEntries: { name: string; value: string }[] = [],
  ) => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions, configEntries }] });
    await admin.disconnect();
  };

  const transactional = async (transactionalId: string) => {
    const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    producers.push(p);
    await p.connect();
    return p;
  };

  /** [partition, offset, key, value] of every record from the beginning to the end offsets (bounded). */
  async function readAll(topic: string, readUncommitted: boolean): Promise<[number, number, string, string][]> {
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const consumer: Consumer = kafka.consumer({
      groupId: `reader-${topic}-${readUncommitted}`,
      readUncommitted,
      maxWaitTimeInMs: 100,
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const out: [number, number, string, string][] = [];
    const position = new Map<number, number>();
    const done = () => ends.every((e) => (position.get(e.partition) ?? 0) >= Number(e.high));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${topic}: read ${JSON.stringify(out)} and stopped`)), 20_000);
        void consumer.run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages)
              out.push([batch.partition, Number(m.offset), String(m.key ?? ''), String(m.value)]);
            position.set(batch.partition, Number(batch.lastOffset()) + 1);
            if (done()) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }

  it('commits and aborts across partitions: read_committed sees the committed records only', async () => {
    const topic = 'txn';
    await createTopic(topic, 2);
    const p = await transactional('pg-basic');
    const committed = await p.transaction();
    await committed.send({ topic, messages: [0, 1].map((partition) => ({ value: `c-${partition}`, partition })) });
    await committed.commit();
    const aborted = await p.transaction();
    await aborted.send({ topic, messages: [0, 1].map((partition) => ({ value: `a-${partition}`, partition })) });
    await aborted.abort();
    const open = await p.transaction();
    await open.send({ topic, messages: [{ value: 'open', partition: 0 }] });
    const { storage } = broker.context;
    expect(await storage.lastStableOffset(topic, 0)).toBe(4); // the open transaction's first offset
    await open.commit();
    expect(await storage.lastStableOffset(topic, 0)).toBe(6);

    const values = (rows: [number, number, string, string][]) => rows.map((r) => r[3]).sort();
    expect(values(await readAll(topic, false))).toEqual(['c-0', 'c-1', 'open']);
    expect(values(await readAll(topic, true))).toEqual(['a-0', 'a-1', 'c-0', 'c-1', 'open']);
    expect((await storage.transaction('pg-basic'))!.state).toBe('CompleteCommit');
  });

  it('sends offsets in a transaction: the group sees them once it commits', async () => {
    const topic = 'txn-offsets';
    const groupId = 'txn-offsets-group';
    await createTopic(topic, 1);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const p = await transactional('pg-offsets');
      const txn = await p.transaction();
      await txn.send({ topic, messages: [{ value: 'out', partition: 0 }] });
      await txn.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic, partitions: [{ partition: 0, offset: '42' }] }],
      });
      expect((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions).toEqual([
        expect.objectContaining({ partition: 0, offset: '-1' }),
      ]);
      await txn.commit();
      expect((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions).toEqual([
        expect.objectContaining({ partition: 0, offset: '42' }),
      ]);
    } finally {
      await admin.disconnect();
    }
  });

  it('compacts a topic: the latest value per key, at the offsets they were written at', async () => {
    const topic = 'compacted';
    await createTopic(topic, 1, [
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'min.compaction.lag.ms', value: '0' },
      { name: 'min.cleanable.dirty.ratio', value: '0.01' },
    ]);
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    producers.push(producer);
    await producer.connect();
    const latest = new Map<string, [number, number, string, string]>();
    for (let round = 0; round < 6; round++) {
      for (let k = 0; k < 4; k++) {
        const [res] = await producer.send({ topic, messages: [{ key: `key${k}`, value: `v${round}-${k}` }] });
        latest.set(`key${k}`, [0, Number(res!.baseOffset), `key${k}`, `v${round}-${k}`]);
      }
    }
    // The batch holding the last offset is never cleaned (Kafka's active segment): end with a tail key.
    const [tail] = await producer.send({ topic, messages: [{ key: 'tail', value: 'end' }] });
    latest.set('tail', [0, Number(tail!.baseOffset), 'tail', 'end']);

    const { storage } = broker.context;
    for (let i = 0; i < 200; i++) {
      const state = await storage.cleanerState(topic, 0, Date.now());
      if (state && state.cleanOffset >= Number(tail!.baseOffset)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const state = (await storage.cleanerState(topic, 0, Date.now()))!;
    expect(state.cleanOffset).toBe(Number(tail!.baseOffset));
    expect(state.lastBytesAfter).toBeLessThan(state.lastBytesBefore);
    expect(await readAll(topic, false)).toEqual([...latest.values()].sort((a, b) => a[1] - b[1]));
  });
});
