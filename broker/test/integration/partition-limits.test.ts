// Issue 11: partitions are bounded per request, per topic and on the broker, for CreateTopics,
// CreatePartitions and Metadata auto-creation alike; a refusal is a Kafka error code for the topic
// with nothing created, and validateOnly answers exactly what a real request would.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { CreatePartitionsResponse, CreateTopicsResponse, MetadataResponse } from '../../src/protocol/messages';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { StorageError } from '../../src/storage/storage';
import { run, startTestBroker, engineOf } from './helpers';
import { MINNOW } from './serve-child';

// Small bounds so the test creates few partitions: 12 on the broker, 5 per topic, 10 per request.
const LIMITS = { maxPartitions: 12, maxPartitionsPerTopic: 5, maxPartitionsPerRequest: 10 };

describe('partition limits', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  beforeEach(async () => {
    broker = await startTestBroker('memory://', { config: LIMITS });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterEach(async () => {
    conn.close();
    await broker.stop();
  });

  const createTopics = (topics: [string, number][], validateOnly = false): Promise<CreateTopicsResponse> =>
    conn.send(ApiKey.CreateTopics, 7, {
      topics: topics.map(([name, numPartitions]) => ({
        name,
        numPartitions,
        replicationFactor: -1,
        assignments: [],
        configs: [],
      })),
      timeoutMs: 5000,
      validateOnly,
    });
  const createPartitions = (topics: [string, number][], validateOnly = false): Promise<CreatePartitionsResponse> =>
    conn.send(ApiKey.CreatePartitions, 3, {
      topics: topics.map(([name, count]) => ({ name, count, assignments: null })),
      timeoutMs: 5000,
      validateOnly,
    });
  const outcome = (r: { name: string; errorCode: number }) => [r.name, r.errorCode];
  const stored = () =>
    engineOf(broker)
      .listTopics()
      .map((t) => [t.name, t.partitionCount]);

  it('refuses a CreateTopics asking for more partitions in all than the request bound, for every topic (Kafka 4.0)', async () => {
    for (const validateOnly of [true, false]) {
      // 4 + 4 + 3 = 11 > 10, each topic within its own bound; an invalid name counts too, as in Kafka.
      const res = await createTopics(
        [
          ['a', 4],
          ['b', 4],
          ['bad name!', 3],
        ],
        validateOnly,
      );
      expect(res.topics.map(outcome)).toEqual([
        ['a', ErrorCode.POLICY_VIOLATION],
        ['b', ErrorCode.POLICY_VIOLATION],
        ['bad name!', ErrorCode.POLICY_VIOLATION],
      ]);
      expect(res.topics[0]!.errorMessage).toMatch(
        /^Excessively large number of partitions per request: 11 requested, the limit is 10 \(MINNOW_MAX_PARTITIONS_PER_REQUEST\)/,
      );
    }
    expect(stored()).toEqual([]);
    expect(
      (
        await createTopics([
          ['a', 4],
          ['b', 4],
        ])
      ).topics.map(outcome),
    ).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
  });

  it('refuses a topic over the per-topic bound with INVALID_PARTITIONS, in CreateTopics and CreatePartitions', async () => {
    for (const validateOnly of [true, false]) {
      const res = await createTopics(
        [
          ['big', 6],
          ['ok', 4],
        ],
        validateOnly,
      );
      expect(res.topics.map(outcome)).toEqual([
        ['big', ErrorCode.INVALID_PARTITIONS],
        ['ok', 0],
      ]);
      expect(res.topics[0]!.errorMessage).toBe(
        'topic big: 6 partitions is over the limit per topic of 5 (MINNOW_MAX_PARTITIONS_PER_TOPIC)',
      );
    }
    for (const validateOnly of [true, false]) {
      const grown = await createPartitions([['ok', 6]], validateOnly);
      expect(grown.results[0]!.errorMessage).toBe(
        'topic ok: 6 partitions is over the limit per topic of 5 (MINNOW_MAX_PARTITIONS_PER_TOPIC)',
      );
      expect(grown.results.map(outcome)).toEqual([['ok', ErrorCode.INVALID_PARTITIONS]]);
    }
    expect(stored()).toEqual([['ok', 4]]);
  });

  it('refuses what would take the broker over its total with POLICY_VIOLATION; the topics that fit are created', async () => {
    await createTopics([['a', 4]]);
    // 4 stored: b brings the broker to 8, c to exactly 12, d would make 13.
    const res = await createTopics([
      ['b', 4],
      ['c', 4],
      ['d', 1],
    ]);
    expect(res.topics.map(outcome)).toEqual([
      ['b', 0],
      ['c', 0],
      ['d', ErrorCode.POLICY_VIOLATION],
    ]);
    expect(res.topics[2]!.errorMessage).toBe(
      'topic d: 1 more partitions would bring the broker to 13, over its limit of 12 (MINNOW_MAX_PARTITIONS); delete topics or raise the limit',
    );
    expect(res.topics[2]!.topicId).toBe(ZERO_UUID);
    expect(engineOf(broker).totalPartitions()).toBe(12);
    // CreatePartitions too, validateOnly included.
    for (const validateOnly of [true, false]) {
      expect((await createPartitions([['a', 5]], validateOnly)).results.map(outcome)).toEqual([
        ['a', ErrorCode.POLICY_VIOLATION],
      ]);
    }
    expect(stored()).toEqual([
      ['a', 4],
      ['b', 4],
      ['c', 4],
    ]);
  });

  it('counts the topics of a validateOnly request against the bounds as a real request would', async () => {
    await createTopics([
      ['a', 5],
      ['b', 5],
    ]);
    // 10 stored, 2 left: x fits, y would not once x counts, although nothing is created.
    const res = await createTopics(
      [
        ['x', 2],
        ['y', 1],
      ],
      true,
    );
    expect(res.topics.map(outcome)).toEqual([
      ['x', 0],
      ['y', ErrorCode.POLICY_VIOLATION],
    ]);
    const grow = await createPartitions(
      [
        ['a', 6],
        ['b', 5],
      ],
      true,
    );
    expect(grow.results.map(outcome)).toEqual([
      ['a', ErrorCode.INVALID_PARTITIONS],
      ['b', ErrorCode.INVALID_PARTITIONS],
    ]);
    expect(stored()).toEqual([
      ['a', 5],
      ['b', 5],
    ]);
  });

  it('bounds the partitions one CreatePartitions request adds', async () => {
    await createTopics([
      ['a', 1],
      ['b', 1],
    ]);
    const res = await createPartitions([
      ['a', 5],
      ['b', 5],
    ]); // 4 + 4 = 8 fits the request bound of 10
    expect(res.results.map(outcome)).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
    await broker.stop();
    broker = await startTestBroker('memory://', { config: { ...LIMITS, maxPartitionsPerRequest: 7 } });
    conn.close();
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    await createTopics([
      ['a', 1],
      ['b', 1],
    ]);
    const over = await createPartitions([
      ['a', 5],
      ['b', 5],
    ]);
    expect(over.results.map(outcome)).toEqual([
      ['a', ErrorCode.POLICY_VIOLATION],
      ['b', ErrorCode.POLICY_VIOLATION],
    ]);
    expect(over.results[0]!.errorMessage).toMatch(/8 requested, the limit is 7 \(MINNOW_MAX_PARTITIONS_PER_REQUEST\)/);
    expect(stored()).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('refuses auto-creation past the bounds (Metadata answers POLICY_VIOLATION, nothing created)', async () => {
    await broker.stop();
    broker = await startTestBroker('memory://', { config: { ...LIMITS, numPartitions: 4 } });
    conn.close();
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    await createTopics([['a', 5]]);
    const metadata = (names: string[]): Promise<MetadataResponse> =>
      conn.send(ApiKey.Metadata, 12, {
        topics: names.map((name) => ({ name, topicId: ZERO_UUID })),
        allowAutoTopicCreation: true,
        includeTopicAuthorizedOperations: false,
      });
    // 5 stored: auto-1 brings 9, auto-2 would bring 13 > 12.
    const res = await metadata(['auto-1', 'auto-2']);
    // auto-1 is created (answered as Kafka 4 answers while it creates a topic), auto-2 refused.
    expect(res.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([
      ['auto-1', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0],
      ['auto-2', ErrorCode.POLICY_VIOLATION, 0],
    ]);
    expect(stored()).toEqual([
      ['a', 5],
      ['auto-1', 4],
    ]);
    // Room again after a delete.
    engineOf(broker).deleteTopic('a');
    expect((await metadata(['auto-2'])).topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(stored()).toEqual([
      ['auto-1', 4],
      ['auto-2', 4],
    ]);
  });

  it('refuses auto-creation beyond the request bound, counted over the topics one Metadata request names', async () => {
    await broker.stop();
    broker = await startTestBroker('memory://', { config: { ...LIMITS, maxPartitions: 100, numPartitions: 4 } });
    conn.close();
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const res: MetadataResponse = await conn.send(ApiKey.Metadata, 12, {
      topics: ['m1', 'm2', 'm3'].map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: true,
      includeTopicAuthorizedOperations: false,
    });
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['m1', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['m2', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['m3', ErrorCode.POLICY_VIOLATION],
    ]);
  });

  it('answers KAFKA_STORAGE_ERROR for a topic the storage fails to create or grow, and keeps the connection', async () => {
    await createTopics([['a', 1]]);
    const storage = broker.context.storage;
    // The handler writes a slice of topics at once; the engine answers each on its own.
    const createEach = storage.createTopics.bind(storage);
    const failCreate = jest
      .spyOn(storage, 'createTopics')
      .mockImplementationOnce(async ([x, ...rest]) => [
        new StorageError(`SQLite failed: database or disk is full (SQLITE_FULL) creating ${x!.name}`),
        ...(await createEach(rest)),
      ]);
    const failGrow = jest.spyOn(storage, 'createPartitions').mockImplementationOnce(() => {
      throw new StorageError('SQLite failed: database or disk is full (SQLITE_FULL)');
    });
    try {
      const res = await createTopics([
        ['x', 1],
        ['y', 1],
      ]);
      expect(res.topics.map(outcome)).toEqual([
        ['x', ErrorCode.KAFKA_STORAGE_ERROR],
        ['y', 0],
      ]);
      expect(res.topics[0]!.errorMessage).toBe(
        'topic x was not created: SQLite failed: database or disk is full (SQLITE_FULL) creating x',
      );
      const grown = await createPartitions([['a', 2]]);
      expect(grown.results.map(outcome)).toEqual([['a', ErrorCode.KAFKA_STORAGE_ERROR]]);
    } finally {
      failCreate.mockRestore();
      failGrow.mockRestore();
    }
    expect(stored()).toEqual([
      ['a', 1],
      ['y', 1],
    ]);
  });

  it('answers KAFKA_STORAGE_ERROR for every topic of a slice whose commit failed, and creates none', async () => {
    const storage = broker.context.storage;
    const failCommit = jest.spyOn(storage, 'createTopics').mockImplementationOnce(() => {
      throw new StorageError('SQLite failed: disk I/O error (SQLITE_IOERR_WRITE)');
    });
    try {
      const res = await createTopics([
        ['x', 1],
        ['y', 1],
      ]);
      expect(res.topics.map(outcome)).toEqual([
        ['x', ErrorCode.KAFKA_STORAGE_ERROR],
        ['y', ErrorCode.KAFKA_STORAGE_ERROR],
      ]);
      expect(res.topics[1]!.errorMessage).toBe(
        'topic y was not created: SQLite failed: disk I/O error (SQLITE_IOERR_WRITE)',
      );
    } finally {
      failCommit.mockRestore();
    }
    expect(stored()).toEqual([]);
    // The claims of the failed slice are not held against the broker's total.
    expect((await createTopics([['z', 5]])).topics.map(outcome)).toEqual([['z', 0]]);
  });

  it('shows kafkajs and `minnow topic create` the refusal and its reason', async () => {
    await createTopics([
      ['a', 5],
      ['b', 4],
    ]);
    await createTopics([['c', 2]]); // 11 of 12
    const kafka = new Kafka({
      clientId: 'limits-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await expect(admin.createTopics({ topics: [{ topic: 'k', numPartitions: 2 }] })).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'POLICY_VIOLATION' })],
      });
      await expect(admin.createPartitions({ topicPartitions: [{ topic: 'c', count: 4 }] })).rejects.toMatchObject({
        type: 'POLICY_VIOLATION',
      });
    } finally {
      await admin.disconnect();
    }
    const cli = await run(
      'node',
      [MINNOW, 'topic', 'create', 'd', '--partitions', '2', '--bootstrap-server', `127.0.0.1:${broker.port}`],
      { timeoutMs: 30_000 },
    );
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /create topic d: POLICY_VIOLATION: topic d: 2 more partitions would bring the broker to 13, over its limit of 12 \(MINNOW_MAX_PARTITIONS\)/,
    );
    expect(stored()).toEqual([
      ['a', 5],
      ['b', 4],
      ['c', 2],
    ]);
  });
});
