// The broker's configs as Kafka answers them (issue 10 item 5): its settings read-only, the configs
// Kafka lets change at runtime stored, surviving a restart and applied to topics and produce; the
// others get Kafka's refusal. Topic configs: configs.test.ts.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';
import { BROKER, BROKER_LOGGER, configRequests, DELETE, SET, Source, TOPIC } from './configs-kit';

describe('broker configs as in Kafka', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();
  const url = `sqlite://${tmp.dir}/configs.db`;

  beforeAll(async () => {
    broker = await startTestBroker(url, { config: { retentionCheckIntervalMs: 100 } });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const { describeConfigs, alter, incremental, values } = configRequests(() => conn);

  it('describes the broker with its settings read-only and the dynamic ones writable', async () => {
    const res = await describeConfigs(BROKER, '1', { synonyms: true });
    const byName = Object.fromEntries(res.configs.map((e) => [e.name, e]));
    // Settings no env var, flag or override gave are at Kafka's default: DEFAULT_CONFIG, as Kafka says.
    expect(byName['num.partitions']).toEqual(
      expect.objectContaining({ value: '1', readOnly: true, configSource: Source.DEFAULT_CONFIG }),
    );
    expect(byName['auto.create.topics.enable']).toEqual(
      expect.objectContaining({
        value: 'true',
        readOnly: true,
        configSource: Source.DEFAULT_CONFIG,
        synonyms: [{ name: 'auto.create.topics.enable', value: 'true', source: Source.DEFAULT_CONFIG }],
      }),
    );
    expect(byName['node.id']).toEqual(
      expect.objectContaining({ value: '1', configSource: Source.STATIC_BROKER_CONFIG }),
    );
    expect(byName['log.retention.check.interval.ms']).toEqual(expect.objectContaining({ readOnly: true }));
    expect(byName['log.retention.ms']).toEqual(
      expect.objectContaining({ value: null, readOnly: false, configSource: Source.DEFAULT_CONFIG }),
    );
    expect(byName['log.retention.hours']).toEqual(expect.objectContaining({ value: '168', readOnly: true }));
    expect(byName['message.max.bytes']).toEqual(expect.objectContaining({ value: '1048588', readOnly: false }));
    // The broker defaults of the topic configs Kafka 4.0 removed are not listed, as in Kafka 4, until set.
    const removed = [
      'log.message.format.version',
      'log.message.downconversion.enable',
      'log.message.timestamp.difference.max.ms',
    ];
    expect(res.configs.map((e) => e.name)).toEqual(expect.not.arrayContaining([removed[0]]));
    expect(res.configs.map((e) => e.name)).toEqual(expect.not.arrayContaining([removed[1]]));
    expect(res.configs.map((e) => e.name)).toEqual(expect.not.arrayContaining([removed[2]]));
    expect(await incremental(BROKER, '1', [{ name: removed[2]!, configOperation: SET, value: '60000' }])).toMatchObject(
      { errorCode: 0 },
    );
    const set = (await describeConfigs(BROKER, '1')).configs.find((e) => e.name === removed[2]);
    expect(set).toEqual(
      expect.objectContaining({ value: '60000', readOnly: false, configSource: Source.DYNAMIC_BROKER_CONFIG }),
    );
    expect(await incremental(BROKER, '1', [{ name: removed[2]!, configOperation: DELETE, value: null }])).toMatchObject(
      { errorCode: 0 },
    );
    expect(await describeConfigs(BROKER, '7')).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Unexpected broker id, expected 1 or empty string, but received 7',
    });
    expect((await describeConfigs(BROKER, '')).configs).toEqual([]);
  });

  it("reports fetch.max.bytes, read-only, at minnow's 16 MiB (Kafka: 55 MiB) as a static setting", async () => {
    const res = await describeConfigs(BROKER, '1', { keys: ['fetch.max.bytes'], synonyms: true, docs: true });
    const entry = res.configs.find((e) => e.name === 'fetch.max.bytes');
    expect(entry).toEqual(
      expect.objectContaining({
        value: String(16 * 1024 * 1024),
        readOnly: true,
        configSource: Source.STATIC_BROKER_CONFIG,
      }),
    );
    expect(entry!.synonyms).toEqual([
      { name: 'fetch.max.bytes', value: String(16 * 1024 * 1024), source: Source.STATIC_BROKER_CONFIG },
      { name: 'fetch.max.bytes', value: String(55 * 1024 * 1024), source: Source.DEFAULT_CONFIG },
    ]);
    expect(entry!.documentation).toBe(
      'The maximum number of bytes we will return for a fetch request. Must be at least 1024.',
    );
    expect(await alter(BROKER, '1', [{ name: 'fetch.max.bytes', value: '1048576' }])).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Cannot update these configs dynamically: Set(fetch.max.bytes)',
    });
  });

  it('refuses broker configs Kafka cannot change at runtime, as Kafka does', async () => {
    expect(await alter(BROKER, '1', [{ name: 'num.partitions', value: '3' }])).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Cannot update these configs dynamically: Set(num.partitions)',
    });
    expect(await incremental(BROKER, '', [{ name: 'log.retention.hours', configOperation: SET, value: '1' }])).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Cannot update these configs dynamically: Set(log.retention.hours)',
    });
    expect(await incremental(BROKER, '1', [{ name: 'log.retention.ms', configOperation: SET, value: 'soon' }])).toEqual(
      {
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Invalid value soon for configuration log.retention.ms: Not a number of type LONG',
      },
    );
    expect(await incremental(BROKER, '2', [{ name: 'log.retention.ms', configOperation: SET, value: '1' }])).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Unexpected broker id, expected 1, but received 2',
    });
    expect(await broker.context.storage.brokerConfigs('1')).toEqual({});
  });

  it("a topic's max.message.bytes applies to the next produce once altered, and its default once deleted", async () => {
    await broker.context.storage.createTopic('limit-change', 1, {});
    const batch = encodeRecordBatch({ records: [{ value: Buffer.alloc(500), timestamp: BigInt(Date.now()) }] });
    const produce = async () =>
      (
        await conn.send(ApiKey.Produce, 9, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 'limit-change', partitionData: [{ index: 0, records: Buffer.from(batch) }] }],
        })
      ).responses[0].partitionResponses[0].errorCode;
    expect(await produce()).toBe(ErrorCode.NONE);
    expect(
      await incremental(TOPIC, 'limit-change', [{ name: 'max.message.bytes', configOperation: SET, value: '200' }]),
    ).toMatchObject({ errorCode: 0 });
    expect(await produce()).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(
      await incremental(TOPIC, 'limit-change', [{ name: 'max.message.bytes', configOperation: DELETE, value: null }]),
    ).toMatchObject({ errorCode: 0 });
    expect(await produce()).toBe(ErrorCode.NONE);
  });

  it('applies dynamic broker configs as topic defaults: message.max.bytes limits produce, topics report the source', async () => {
    await broker.context.storage.createTopic('dyn', 1, {});
    expect(
      await incremental(BROKER, '', [{ name: 'message.max.bytes', configOperation: SET, value: '200' }]),
    ).toMatchObject({ errorCode: 0 });
    const big = encodeRecordBatch({ records: [{ value: Buffer.alloc(500), timestamp: BigInt(Date.now()) }] });
    const produce = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: 'dyn', partitionData: [{ index: 0, records: big }] }],
    });
    expect(produce.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);

    expect(
      await incremental(BROKER, '1', [{ name: 'log.retention.ms', configOperation: SET, value: '3600000' }]),
    ).toMatchObject({ errorCode: 0 });
    const topic = await describeConfigs(TOPIC, 'dyn', { keys: ['retention.ms', 'max.message.bytes'], synonyms: true });
    const byName = Object.fromEntries(topic.configs.map((e) => [e.name, e]));
    expect(byName['retention.ms']).toEqual(
      expect.objectContaining({
        value: '3600000',
        configSource: Source.DYNAMIC_BROKER_CONFIG,
        synonyms: [
          { name: 'log.retention.ms', value: '3600000', source: Source.DYNAMIC_BROKER_CONFIG },
          { name: 'log.retention.hours', value: '168', source: Source.DEFAULT_CONFIG },
        ],
      }),
    );
    expect(byName['max.message.bytes']).toEqual(
      expect.objectContaining({ value: '200', configSource: Source.DYNAMIC_DEFAULT_BROKER_CONFIG }),
    );
    const cluster = await describeConfigs(BROKER, '', { synonyms: true });
    expect(cluster.configs).toEqual([
      expect.objectContaining({
        name: 'message.max.bytes',
        value: '200',
        readOnly: false,
        configSource: Source.DYNAMIC_DEFAULT_BROKER_CONFIG,
        synonyms: [{ name: 'message.max.bytes', value: '200', source: Source.DYNAMIC_DEFAULT_BROKER_CONFIG }],
      }),
    ]);

    // They survive a restart (stored in the database).
    conn.close();
    await broker.stop();
    broker = await startTestBroker(url, { config: { retentionCheckIntervalMs: 100 } });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const after = await describeConfigs(BROKER, '1', { keys: ['log.retention.ms', 'message.max.bytes'] });
    expect(values(after.configs)).toEqual({ 'log.retention.ms': '3600000', 'message.max.bytes': '200' });
    expect(after.configs.map((e) => e.configSource)).toEqual([
      Source.DYNAMIC_BROKER_CONFIG,
      Source.DYNAMIC_DEFAULT_BROKER_CONFIG,
    ]);

    expect(
      await incremental(BROKER, '', [{ name: 'message.max.bytes', configOperation: DELETE, value: null }]),
    ).toMatchObject({ errorCode: 0 });
    expect(await alter(BROKER, '1', [])).toMatchObject({ errorCode: 0 });
    expect(await broker.context.storage.brokerConfigs('1')).toEqual({});
    expect(await broker.context.storage.brokerConfigs('')).toEqual({});
  });

  it('applies a change of a dynamic broker default to the very next Produce (the produce path memoizes the defaults)', async () => {
    await broker.context.storage.createTopic('dynmemo', 1, {});
    const produce = async () => {
      const big = encodeRecordBatch({ records: [{ value: Buffer.alloc(500), timestamp: BigInt(Date.now()) }] });
      const res = await conn.send(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'dynmemo', partitionData: [{ index: 0, records: big }] }],
      });
      return res.responses[0].partitionResponses[0].errorCode;
    };
    expect(await produce()).toBe(ErrorCode.NONE); // the defaults are read (and kept) here
    const set = [{ name: 'message.max.bytes', configOperation: SET, value: '200' }];
    expect(await incremental(BROKER, '', set)).toMatchObject({ errorCode: 0 });
    expect(await produce()).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const unset = [{ name: 'message.max.bytes', configOperation: DELETE, value: null }];
    expect(await incremental(BROKER, '', unset)).toMatchObject({ errorCode: 0 });
    expect(await produce()).toBe(ErrorCode.NONE);
  });

  it('applies a cluster-wide log.retention.ms to topics without their own retention.ms', async () => {
    await broker.context.storage.createTopic('dynret', 1, {});
    await broker.context.storage.createTopic('dynret-own', 1, { 'retention.ms': '-1' });
    const old = encodeRecordBatch({
      records: [{ value: Buffer.from('old'), timestamp: BigInt(Date.now() - 600_000) }],
    });
    for (const name of ['dynret', 'dynret-own']) {
      const r = await conn.send(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name, partitionData: [{ index: 0, records: old }] }],
      });
      expect(r.responses[0].partitionResponses[0].errorCode).toBe(0);
    }
    expect(
      await incremental(BROKER, '', [{ name: 'log.retention.ms', configOperation: SET, value: '60000' }]),
    ).toMatchObject({ errorCode: 0 });
    // The retention task runs every 100 ms here; wait for it, at most 10 s.
    for (let i = 0; i < 100 && (await broker.context.storage.offsets('dynret', 0))!.logStartOffset === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await broker.context.storage.offsets('dynret', 0))!.logStartOffset).toBe(1);
    expect((await broker.context.storage.offsets('dynret-own', 0))!.logStartOffset).toBe(0);
    expect(
      await incremental(BROKER, '', [{ name: 'log.retention.ms', configOperation: DELETE, value: null }]),
    ).toMatchObject({ errorCode: 0 });
  }, 20_000);

  it('reports its log level as the root BROKER_LOGGER, which only start-up sets', async () => {
    const res = await describeConfigs(BROKER_LOGGER, '1');
    expect(res.configs).toEqual([
      expect.objectContaining({
        name: 'root',
        value: broker.context.logger.level.toUpperCase(),
        configSource: Source.DYNAMIC_BROKER_LOGGER_CONFIG,
      }),
    ]);
    expect(
      await incremental(BROKER_LOGGER, '1', [{ name: 'root', configOperation: SET, value: 'DEBUG' }]),
    ).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(await alter(BROKER_LOGGER, '1', [{ name: 'root', value: 'DEBUG' }])).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Unknown resource type 8',
    });
  });

  it('round-trips with the kafkajs admin (describeConfigs then alterConfigs with every entry)', async () => {
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 1 },
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 1 }] });
      const read = async () =>
        (await admin.describeConfigs({ resources: [{ type: TOPIC, name: 'kjs' }], includeSynonyms: false }))
          .resources[0]!.configEntries;
      const before = await read();
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: TOPIC,
            name: 'kjs',
            configEntries: before.map((e) => ({ name: e.configName, value: e.configValue })),
          },
        ],
      });
      const after = await read();
      expect(after.map((e) => [e.configName, e.configValue])).toEqual(before.map((e) => [e.configName, e.configValue]));
      expect(after.every((e) => e.configSource === Source.TOPIC_CONFIG)).toBe(true);
    } finally {
      await admin.disconnect();
    }
  });
});
