// Kafka's internal topic names (__consumer_offsets, __transaction_state): minnow keeps that state in
// its database, so asking for them must never create an empty ordinary topic (a lag monitor's
// Metadata request did), clients cannot create them, and the admin APIs that change a topic fail.
// Like Kafka, the first FindCoordinator for a group creates __consumer_offsets (50 partitions,
// internal, compacted); minnow's stays empty (offsets-topic.ts).
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { createLogger } from '../../src/logger';
import { openSyncStorage } from '../../src/storage/open-storage';
import { startTestBroker, tempDir, engineOf } from './helpers';

const INTERNAL = ['__consumer_offsets', '__transaction_state'];

describe('internal topic names', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { autoCreateTopics: true } });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
  });
  const stored = () =>
    engineOf(broker)
      .listTopics()
      .map((t) => t.name);

  it.each([1, 4, 9, 12])(
    'Metadata v%i answers UNKNOWN_TOPIC_OR_PARTITION, flagged internal, and creates nothing',
    async (v) => {
      const res = await conn.send(ApiKey.Metadata, v, {
        topics: INTERNAL.map((name) => ({ name })),
        allowAutoTopicCreation: true,
      });
      expect(
        res.topics.map((t: { name: string; errorCode: number; isInternal: boolean; partitions: unknown[] }) => [
          t.name,
          t.errorCode,
          t.isInternal,
          t.partitions.length,
        ]),
      ).toEqual(INTERNAL.map((name) => [name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, true, 0]));
      expect(stored()).toEqual([]);
    },
  );

  it('still auto-creates ordinary topics', async () => {
    const ask = () => conn.send(ApiKey.Metadata, 9, { topics: [{ name: 'ordinary' }], allowAutoTopicCreation: true });
    // Created while answered UNKNOWN_TOPIC_OR_PARTITION, as Kafka 4 does; the next request sees it.
    expect((await ask()).topics[0]).toEqual(
      expect.objectContaining({ name: 'ordinary', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, isInternal: false }),
    );
    expect((await ask()).topics[0]).toEqual(
      expect.objectContaining({ name: 'ordinary', errorCode: ErrorCode.NONE, isInternal: false }),
    );
    engineOf(broker).deleteTopic('ordinary');
  });

  it('refuses CreateTopics for internal names as Kafka refuses __cluster_metadata (INVALID_REQUEST)', async () => {
    const names = [...INTERNAL, '__cluster_metadata'];
    const res = await conn.send(ApiKey.CreateTopics, 7, {
      timeoutMs: 5000,
      validateOnly: false,
      topics: names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
    });
    for (const [i, name] of names.entries()) {
      expect(res.topics[i]).toEqual(
        expect.objectContaining({
          name,
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: expect.stringContaining(`Creation of internal topic ${name} is prohibited`),
          configs: [],
        }),
      );
    }
    expect(stored()).toEqual([]);
  });

  it('makes the kafkajs admin fail to create __consumer_offsets', async () => {
    const admin = new Kafka({
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin();
    await admin.connect();
    try {
      // kafkajs collects per-topic errors in a KafkaJSAggregateError.
      await expect(admin.createTopics({ topics: [{ topic: '__consumer_offsets' }] })).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_REQUEST' })],
      });
    } finally {
      await admin.disconnect();
    }
    expect(stored()).toEqual([]);
  });

  it('fails DeleteTopics, CreatePartitions, AlterConfigs and DeleteRecords on internal names', async () => {
    const name = '__consumer_offsets';
    const del = await conn.send(ApiKey.DeleteTopics, 4, { topicNames: [name], timeoutMs: 5000 });
    expect(del.responses[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const grow = await conn.send(ApiKey.CreatePartitions, 1, {
      topics: [{ name, count: 50, assignments: null }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(grow.results[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const alter = await conn.send(ApiKey.AlterConfigs, 1, {
      resources: [{ resourceType: 2, resourceName: name, configs: [{ name: 'retention.ms', value: '1000' }] }],
      validateOnly: false,
    });
    expect(alter.responses[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    // ReplicaManager.deleteRecordsOnLocalLog: "Cannot delete records of internal topic".
    const records = await conn.send(ApiKey.DeleteRecords, 1, {
      topics: [{ name, partitions: [{ partitionIndex: 0, offset: -1n }] }],
      timeoutMs: 5000,
    });
    expect(records.topics[0].partitions[0]).toEqual(
      expect.objectContaining({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, lowWatermark: -1n }),
    );
    expect(stored()).toEqual([]);
  });

  it('creates __consumer_offsets at the first FindCoordinator for a group, as Kafka: 50 partitions, internal, compacted, empty', async () => {
    const find = () => conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g1'] });
    // A transactional id's lookup creates nothing (Kafka's would create __transaction_state).
    await conn.send(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['t1'] });
    expect(stored()).toEqual([]);
    expect((await find()).coordinators[0].errorCode).toBe(ErrorCode.NONE);
    expect(stored()).toEqual(['__consumer_offsets']);
    await find(); // a second lookup keeps the one topic
    expect(stored()).toEqual(['__consumer_offsets']);

    const md = await conn.send(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
    const [t] = md.topics;
    expect(md.topics).toHaveLength(1);
    expect(t).toEqual(
      expect.objectContaining({ name: '__consumer_offsets', errorCode: ErrorCode.NONE, isInternal: true }),
    );
    expect(t.partitions).toHaveLength(50);
    const configs = await conn.send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: 2, resourceName: '__consumer_offsets', configurationKeys: ['cleanup.policy'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    expect(configs.results[0].configs).toEqual([expect.objectContaining({ name: 'cleanup.policy', value: 'compact' })]);
    const latest = await conn.send(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: '__consumer_offsets', partitions: [{ partitionIndex: 49, timestamp: -1n }] }],
    });
    expect(latest.topics[0].partitions[0]).toEqual(expect.objectContaining({ errorCode: ErrorCode.NONE, offset: 0n }));
  });

  it('refuses a client producing to __consumer_offsets as Kafka does, and answers CreateTopics TOPIC_ALREADY_EXISTS', async () => {
    const batch = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] });
    const produced = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: '__consumer_offsets', partitionData: [{ index: 0, records: batch }] }],
    });
    expect(produced.responses[0].partitionResponses[0]).toEqual(
      expect.objectContaining({
        errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
        errorMessage: 'Cannot append to internal topic __consumer_offsets',
      }),
    );
    const created = await conn.send(ApiKey.CreateTopics, 7, {
      timeoutMs: 5000,
      validateOnly: false,
      topics: [{ name: '__consumer_offsets', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    });
    expect(created.topics[0].errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    expect(engineOf(broker).offsets('__consumer_offsets', 0)?.highWatermark).toBe(0);
  });

  it('lists __consumer_offsets to the kafkajs admin, whose group lookups work beside it', async () => {
    const kafka = new Kafka({ brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g1'] });
      expect(await admin.listTopics()).toContain('__consumer_offsets');
      const md = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
      expect(md.topics[0]!.partitions).toHaveLength(50);
      engineOf(broker).createTopic('beside', 1, {});
      expect(await admin.fetchOffsets({ groupId: 'g-beside', topics: ['beside'] })).toEqual([
        { topic: 'beside', partitions: [expect.objectContaining({ partition: 0, offset: '-1' })] },
      ]);
    } finally {
      await admin.disconnect();
      engineOf(broker).deleteTopic('beside');
    }
  });

  it('deletes __consumer_offsets on request (as Kafka) and the next group lookup creates it again', async () => {
    const del = await conn.send(ApiKey.DeleteTopics, 4, { topicNames: ['__consumer_offsets'], timeoutMs: 5000 });
    expect(del.responses[0].errorCode).toBe(ErrorCode.NONE);
    expect(stored()).toEqual([]);
    await conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g2'] });
    expect(stored()).toEqual(['__consumer_offsets']);
    engineOf(broker).deleteTopic('__consumer_offsets');
  });

  it('flags a leftover internal-named topic (made by an older minnow) as internal and lets it be deleted', async () => {
    engineOf(broker).createTopic('__transaction_state', 1, {});
    const res = await conn.send(ApiKey.Metadata, 9, { topics: null, allowAutoTopicCreation: false });
    expect(res.topics).toEqual([
      expect.objectContaining({ name: '__transaction_state', errorCode: ErrorCode.NONE, isInternal: true }),
    ]);
    const del = await conn.send(ApiKey.DeleteTopics, 4, { topicNames: ['__transaction_state'], timeoutMs: 5000 });
    expect(del.responses[0].errorCode).toBe(ErrorCode.NONE);
    expect(stored()).toEqual([]);
  });

  it('warns at start-up about a leftover internal-named topic, telling how to remove it', async () => {
    const tmp = tempDir();
    const url = `sqlite://${tmp.dir}/leftover.db`;
    const old = openSyncStorage(url);
    old.createTopic('__transaction_state', 1, {});
    old.createTopic('__consumer_offsets', 50, {}); // made by this minnow: no warning
    old.close();
    const lines: string[] = [];
    const b = await startTestBroker(url, { logger: createLogger('warn', (l) => lines.push(l)) });
    try {
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => typeof l.topic === 'string');
      expect(warnings).toEqual([
        expect.objectContaining({
          level: 'warn',
          topic: '__transaction_state',
          msg: expect.stringMatching(/internal topic name.*delete it/),
        }),
      ]);
    } finally {
      await b.stop();
      tmp.cleanup();
    }
  });
});
