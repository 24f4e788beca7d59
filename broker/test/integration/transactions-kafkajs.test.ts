// kafkajs 2.2.4 transactions against the broker (KIP-98, transaction version 1): commit, abort,
// sendOffsets, zombie fencing and the broker's timeout abort, each read back by a read_committed
// consumer (kafkajs' default) and a read_uncommitted one. Markers are control batches: neither
// consumer may see them as records.
import { Kafka, logLevel } from 'kafkajs';
import type { Consumer, Producer } from 'kafkajs';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { Engine, startTestBroker, storageUrlFor, tempDir } from './helpers';

const CLEANUP_INTERVAL_MS = 100;

describe.each<Engine>(['memory', 'sqlite'])('kafkajs transactions against %s storage', (engine) => {
  let broker: RunningBroker;
  let kafka: Kafka;
  const tmp = tempDir();
  const producers: Producer[] = [];

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir), {
      config: { groupInitialRebalanceDelayMs: 0, transactionCleanupIntervalMs: CLEANUP_INTERVAL_MS },
    });
    kafka = new Kafka({
      clientId: 'minnow-txn-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 50 },
    });
  });
  afterEach(async () => {
    await Promise.all(producers.splice(0).map((p) => p.disconnect()));
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  const createTopic = async (topic: string, numPartitions = 2) => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions }] });
    await admin.disconnect();
  };

  const transactional = async (transactionalId: string, transactionTimeout = 60_000) => {
    const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout });
    producers.push(p);
    await p.connect();
    return p;
  };

  /**
   * Every value of `topic` from the beginning up to its end offsets (markers included), at one
   * isolation level; bounded in time. kafkajs drops aborted records itself from the response's
   * aborted transactions.
   */
  async function readAll(topic: string, readUncommitted: boolean): Promise<string[]> {
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const consumer: Consumer = kafka.consumer({
      groupId: `reader-${topic}-${readUncommitted}-${Date.now()}`,
      readUncommitted,
      maxWaitTimeInMs: 100,
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const values: string[] = [];
    const position = new Map<number, number>();
    const done = () => ends.every((e) => (position.get(e.partition) ?? 0) >= Number(e.high));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${topic}: read ${values.join(',')} and stopped`)), 20_000);
        void consumer.run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) values.push(String(m.value));
            // The batch's last offset covers control records too: the consumer's position moved past them.
            position.set(batch.partition, Number(batch.lastOffset()) + 1);
            if (done()) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
        if (ends.every((e) => Number(e.high) === 0)) resolve();
      });
    } finally {
      await consumer.disconnect();
    }
    return values.sort();
  }

  it('commits and aborts: read_committed sees only the committed records, read_uncommitted both', async () => {
    const topic = `txn-basic-${engine}`;
    await createTopic(topic);
    const p = await transactional(`basic-${engine}`);
    const committed = await p.transaction();
    await committed.send({
      topic,
      messages: [
        { value: 'c-0', partition: 0 },
        { value: 'c-1', partition: 1 },
      ],
    });
    await committed.commit();
    const aborted = await p.transaction();
    await aborted.send({
      topic,
      messages: [
        { value: 'a-0', partition: 0 },
        { value: 'a-1', partition: 1 },
      ],
    });
    await aborted.abort();
    const last = await p.transaction();
    await last.send({ topic, messages: [{ value: 'c-2', partition: 0 }] });
    await last.commit();

    expect(await readAll(topic, false)).toEqual(['c-0', 'c-1', 'c-2']);
    expect(await readAll(topic, true)).toEqual(['a-0', 'a-1', 'c-0', 'c-1', 'c-2']);
    // One record and one marker per transaction in partition 0 (three), in 1 (two).
    expect((await broker.context.storage.offsets(topic, 0))!.highWatermark).toBe(6);
    expect((await broker.context.storage.offsets(topic, 1))!.highWatermark).toBe(4);
  });

  it('holds read_committed consumers at the last stable offset while a transaction is open', async () => {
    const topic = `txn-open-${engine}`;
    await createTopic(topic, 1);
    const p = await transactional(`open-${engine}`);
    const txn = await p.transaction();
    await txn.send({ topic, messages: [{ value: 'pending', partition: 0 }] });
    const { storage } = broker.context;
    expect((await storage.offsets(topic, 0))!.highWatermark).toBe(1);
    expect(await storage.lastStableOffset(topic, 0)).toBe(0);
    await txn.commit();
    expect(await storage.lastStableOffset(topic, 0)).toBe(2);
    expect(await readAll(topic, false)).toEqual(['pending']);
  });

  it('sends offsets in the transaction: the group sees them only once it commits', async () => {
    const topic = `txn-offsets-${engine}`;
    const groupId = `txn-offsets-group-${engine}`;
    await createTopic(topic, 1);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const p = await transactional(`offsets-${engine}`);
      const txn = await p.transaction();
      await txn.send({ topic, messages: [{ value: 'out', partition: 0 }] });
      await txn.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic, partitions: [{ partition: 0, offset: '42' }] }],
      });
      const before = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(before[0]!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '-1' })]);
      await txn.commit();
      const after = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(after[0]!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '42' })]);

      // Aborted: the offsets of the next transaction never reach the group.
      const again = await p.transaction();
      await again.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic, partitions: [{ partition: 0, offset: '99' }] }],
      });
      await again.abort();
      const still = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(still[0]!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '42' })]);
    } finally {
      await admin.disconnect();
    }
  });

  it('fences a zombie: a second producer with the same transactional id aborts its transaction', async () => {
    const topic = `txn-zombie-${engine}`;
    await createTopic(topic, 1);
    const zombie = await transactional(`zombie-${engine}`);
    const zombieTxn = await zombie.transaction();
    await zombieTxn.send({ topic, messages: [{ value: 'zombie', partition: 0 }] });

    const next = await transactional(`zombie-${engine}`);
    const txn = await next.transaction(); // InitProducerId: the zombie's transaction is aborted
    await expect(zombieTxn.commit()).rejects.toMatchObject({
      type: expect.stringMatching(/^(INVALID_PRODUCER_EPOCH|PRODUCER_FENCED)$/),
    });
    await txn.send({ topic, messages: [{ value: 'fresh', partition: 0 }] });
    await txn.commit();

    expect(await readAll(topic, false)).toEqual(['fresh']);
    expect(await readAll(topic, true)).toEqual(['fresh', 'zombie']);
  });

  it('aborts a transaction past its transaction.timeout.ms and fences its producer', async () => {
    const topic = `txn-timeout-${engine}`;
    await createTopic(topic, 1);
    const p = await transactional(`timeout-${engine}`, 500);
    const txn = await p.transaction();
    await txn.send({ topic, messages: [{ value: 'late', partition: 0 }] });
    // The broker's cleanup pass aborts it once 500 ms have passed: wait for the state, bounded.
    const deadline = Date.now() + 10_000;
    while (
      (await broker.context.storage.transaction(`timeout-${engine}`))!.state === 'Ongoing' &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, CLEANUP_INTERVAL_MS));
    expect((await broker.context.storage.transaction(`timeout-${engine}`))!.state).toBe('CompleteAbort');
    expect(await broker.context.storage.lastStableOffset(topic, 0)).toBe(2);
    await expect(txn.commit()).rejects.toMatchObject({
      type: expect.stringMatching(/^(INVALID_PRODUCER_EPOCH|PRODUCER_FENCED)$/),
    });
    // A new instance carries on (kafkajs hands a reader no batch made only of aborted records, so
    // a committed one follows for the readers to reach the end).
    const next = await transactional(`timeout-${engine}`);
    const after = await next.transaction();
    await after.send({ topic, messages: [{ value: 'after', partition: 0 }] });
    await after.commit();
    expect(await readAll(topic, false)).toEqual(['after']);
    expect(await readAll(topic, true)).toEqual(['after', 'late']);
  });

  it('lists and describes transactions (ListTransactions, DescribeTransactions)', async () => {
    const topic = `txn-list-${engine}`;
    await createTopic(topic, 1);
    const p = await transactional(`list-${engine}`);
    const txn = await p.transaction();
    await txn.send({ topic, messages: [{ value: 'x', partition: 0 }] });
    const { KafkaConnection } = await import('../../src/client/connection');
    const { ApiKey } = await import('../../src/protocol/api-keys');
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const list = await conn.send(ApiKey.ListTransactions, 1, {
        stateFilters: ['Ongoing'],
        producerIdFilters: [],
        durationFilter: -1n,
      });
      expect(list.errorCode).toBe(ErrorCode.NONE);
      expect(list.transactionStates).toContainEqual(
        expect.objectContaining({ transactionalId: `list-${engine}`, transactionState: 'Ongoing' }),
      );
      const described = await conn.send(ApiKey.DescribeTransactions, 0, {
        transactionalIds: [`list-${engine}`, 'no-such-id'],
      });
      expect(described.transactionStates[0]).toMatchObject({
        errorCode: ErrorCode.NONE,
        transactionState: 'Ongoing',
        transactionTimeoutMs: 60_000,
        topics: [{ topic, partitions: [0] }],
      });
      expect(described.transactionStates[1]).toMatchObject({ errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND });
    } finally {
      conn.close();
    }
    await txn.commit();
  });
});
