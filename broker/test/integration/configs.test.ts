// DescribeConfigs / AlterConfigs / IncrementalAlterConfigs as Kafka answers them (issue 10 item 5):
// what DescribeConfigs returns is accepted back unchanged; broker configs Kafka lets change at
// runtime are stored, survive a restart and apply; the others get Kafka's refusal.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const Source = {
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
};
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

interface Entry {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: { name: string; value: string | null; source: number }[];
  configType: number;
  documentation: string | null;
}

describe('configs round-trip as in Kafka', () => {
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

  const describeConfigs = async (
    resourceType: number,
    resourceName: string,
    opts: { keys?: string[] | null; synonyms?: boolean; docs?: boolean } = {},
  ) => {
    const res = await conn.send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType, resourceName, configurationKeys: opts.keys ?? null }],
      includeSynonyms: opts.synonyms ?? false,
      includeDocumentation: opts.docs ?? false,
    });
    return res.results[0] as { errorCode: number; errorMessage: string | null; configs: Entry[] };
  };
  const outcome = (r: { errorCode: number; errorMessage: string | null }) => ({
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
  });
  const alter = async (
    resourceType: number,
    resourceName: string,
    configs: { name: string; value: string | null }[],
    validateOnly = false,
  ) =>
    outcome(
      (await conn.send(ApiKey.AlterConfigs, 2, { resources: [{ resourceType, resourceName, configs }], validateOnly }))
        .responses[0],
    );
  const incremental = async (
    resourceType: number,
    resourceName: string,
    configs: { name: string; configOperation: number; value: string | null }[],
    validateOnly = false,
  ) =>
    outcome(
      (
        await conn.send(ApiKey.IncrementalAlterConfigs, 1, {
          resources: [{ resourceType, resourceName, configs }],
          validateOnly,
        })
      ).responses[0],
    );
  const values = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [e.name, e.value]));

  it('accepts back every value DescribeConfigs returns, with AlterConfigs and with IncrementalAlterConfigs', async () => {
    await broker.context.storage.createTopic('rt', 1, {});
    const first = await describeConfigs(TOPIC, 'rt');
    expect(first.errorCode).toBe(ErrorCode.NONE);
    // Kafka 4's list: the 36 configs of 3.9 less the three 4.0 removed (still accepted, below).
    expect(first.configs.length).toBe(33);
    expect(first.configs.map((e) => e.name)).not.toEqual(expect.arrayContaining(['message.format.version']));
    expect(values(first.configs)).toEqual(
      expect.objectContaining({
        'message.timestamp.after.max.ms': '3600000',
        'flush.ms': '9223372036854775807',
        'min.cleanable.dirty.ratio': '0.5',
        'leader.replication.throttled.replicas': '',
        'cleanup.policy': 'delete',
      }),
    );
    expect(first.configs.every((e) => e.configSource === Source.DEFAULT_CONFIG && !e.readOnly)).toBe(true);

    const all = first.configs.map((e) => ({ name: e.name, value: e.value }));
    expect(await alter(TOPIC, 'rt', all)).toEqual({ errorCode: ErrorCode.NONE, errorMessage: null });
    const second = await describeConfigs(TOPIC, 'rt');
    expect(values(second.configs)).toEqual(values(first.configs));
    expect(second.configs.every((e) => e.configSource === Source.TOPIC_CONFIG)).toBe(true);

    expect(
      await incremental(
        TOPIC,
        'rt',
        all.map((c) => ({ ...c, configOperation: SET })),
      ),
    ).toEqual({ errorCode: ErrorCode.NONE, errorMessage: null });
    expect(values((await describeConfigs(TOPIC, 'rt')).configs)).toEqual(values(first.configs));

    // The configs Kafka 4.0 removed are still accepted, as 3.9 did, and then described as set.
    const removed = {
      'message.format.version': '2.8',
      'message.downconversion.enable': 'false',
      'message.timestamp.difference.max.ms': '60000',
    };
    expect(
      await incremental(
        TOPIC,
        'rt',
        Object.entries(removed).map(([name, value]) => ({ name, value, configOperation: SET })),
      ),
    ).toMatchObject({ errorCode: 0 });
    const third = await describeConfigs(TOPIC, 'rt');
    expect(third.configs).toHaveLength(36);
    expect(values(third.configs)).toEqual(expect.objectContaining(removed));
  });

  it('fills synonyms, configType and documentation as Kafka does', async () => {
    await broker.context.storage.createTopic('syn', 1, {});
    expect(
      await incremental(TOPIC, 'syn', [{ name: 'segment.bytes', configOperation: SET, value: '1048576' }]),
    ).toMatchObject({ errorCode: 0 });
    const res = await describeConfigs(TOPIC, 'syn', {
      keys: ['segment.bytes', 'retention.ms', 'remote.storage.enable'],
      synonyms: true,
      docs: true,
    });
    const byName = Object.fromEntries(res.configs.map((e) => [e.name, e]));
    expect(byName['segment.bytes']).toEqual(
      expect.objectContaining({
        value: '1048576',
        configSource: Source.TOPIC_CONFIG,
        configType: 3, // INT
        synonyms: [
          { name: 'segment.bytes', value: '1048576', source: Source.TOPIC_CONFIG },
          { name: 'log.segment.bytes', value: '1073741824', source: Source.DEFAULT_CONFIG },
        ],
      }),
    );
    expect(byName['segment.bytes']!.documentation).toMatch(/^This configuration controls the segment file size/);
    // log.retention.ms has no default (log.retention.hours does): Kafka lists no synonym.
    expect(byName['retention.ms']).toEqual(
      expect.objectContaining({ value: '604800000', configSource: Source.DEFAULT_CONFIG, configType: 5, synonyms: [] }),
    );
    expect(byName['remote.storage.enable']).toEqual(
      expect.objectContaining({ value: 'false', configType: 1, synonyms: [] }),
    );
    // An empty key list means all configs, as in Kafka.
    expect((await describeConfigs(TOPIC, 'syn', { keys: [] })).configs).toHaveLength(33);
  });

  it('answers bad topic configs with INVALID_CONFIG and Kafka texts, and stores nothing', async () => {
    await broker.context.storage.createTopic('bad', 1, { 'retention.ms': '1000' });
    expect(await alter(TOPIC, 'bad', [{ name: 'no.such.config', value: '1' }])).toEqual({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: 'Unknown topic config name: no.such.config',
    });
    expect(await incremental(TOPIC, 'bad', [{ name: 'retention.ms', configOperation: SET, value: '-5' }])).toEqual({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: 'Invalid value -5 for configuration retention.ms: Value must be at least -1',
    });
    expect(await incremental(TOPIC, 'bad', [{ name: 'cleanup.policy', configOperation: SET, value: 'zap' }])).toEqual({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: 'Invalid value zap for configuration cleanup.policy: String must be one of: compact, delete',
    });
    expect(await incremental(TOPIC, 'bad', [{ name: 'retention.ms', configOperation: APPEND, value: '1' }])).toEqual({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: "Can't APPEND to key retention.ms because its type is not LIST.",
    });
    expect(await alter(TOPIC, 'bad', [{ name: 'retention.ms', value: null }])).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Null value not supported for : retention.ms',
    });
    expect(
      await incremental(TOPIC, 'bad', [
        { name: 'retention.ms', configOperation: SET, value: '1' },
        { name: 'retention.ms', configOperation: DELETE, value: null },
      ]),
    ).toEqual({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Error due to duplicate config keys' });
    expect(await alter(TOPIC, 'missing', [{ name: 'retention.ms', value: '5' }])).toEqual({
      errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      errorMessage: "The topic 'missing' does not exist.",
    });
    expect((await broker.context.storage.topic('bad'))!.configs).toEqual({ 'retention.ms': '1000' });
  });

  it('checks CreateTopics configs the same way, and stores them as DescribeConfigs reports them', async () => {
    const create = async (name: string, configs: { name: string; value: string | null }[]) =>
      (
        await conn.send(ApiKey.CreateTopics, 7, {
          topics: [{ name, numPartitions: 1, replicationFactor: -1, assignments: [], configs }],
          timeoutMs: 5000,
          validateOnly: false,
        })
      ).topics[0];
    const made = await create('ct', [
      { name: 'message.format.version', value: '2.8' },
      { name: 'flush.ms', value: ' 1000 ' },
      { name: 'message.timestamp.difference.max.ms', value: '9223372036854775807' },
    ]);
    expect(made).toMatchObject({ errorCode: 0 });
    expect(made.configs.find((c: { name: string }) => c.name === 'flush.ms')).toEqual(
      expect.objectContaining({ value: '1000', configSource: Source.TOPIC_CONFIG }),
    );
    expect((await broker.context.storage.topic('ct'))!.configs).toEqual({
      'message.format.version': '2.8',
      'flush.ms': '1000',
      'message.timestamp.difference.max.ms': '9223372036854775807',
    });
    expect(await create('ct-bad', [{ name: 'no.such.config', value: '1' }])).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: 'Unknown topic config name: no.such.config',
    });
    expect(await create('ct-null', [{ name: 'retention.ms', value: null }])).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: 'Null value not supported for topic configs: retention.ms',
    });
    expect(await broker.context.storage.topic('ct-bad')).toBeUndefined();
    expect(await broker.context.storage.topic('ct-null')).toBeUndefined();
  });

  it('honours validateOnly, and refuses a resource named twice', async () => {
    await broker.context.storage.createTopic('vo', 1, {});
    expect(
      await incremental(TOPIC, 'vo', [{ name: 'retention.ms', configOperation: SET, value: '5' }], true),
    ).toMatchObject({ errorCode: 0 });
    expect(await alter(TOPIC, 'vo', [{ name: 'retention.ms', value: '5' }], true)).toMatchObject({ errorCode: 0 });
    expect((await broker.context.storage.topic('vo'))!.configs).toEqual({});
    const twice = await conn.send(ApiKey.AlterConfigs, 2, {
      resources: [
        { resourceType: TOPIC, resourceName: 'vo', configs: [] },
        { resourceType: TOPIC, resourceName: 'vo', configs: [] },
      ],
      validateOnly: false,
    });
    expect(
      twice.responses.map((r: { errorCode: number; errorMessage: string }) => [r.errorCode, r.errorMessage]),
    ).toEqual([
      [ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.'],
      [ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.'],
    ]);
  });

  it('APPENDs to and SUBTRACTs from list configs (KIP-339)', async () => {
    await broker.context.storage.createTopic('lists', 1, {});
    const name = 'leader.replication.throttled.replicas';
    expect(await incremental(TOPIC, 'lists', [{ name, configOperation: APPEND, value: '0:1,1:1' }])).toMatchObject({
      errorCode: 0,
    });
    expect(await incremental(TOPIC, 'lists', [{ name, configOperation: APPEND, value: '1:1,2:1' }])).toMatchObject({
      errorCode: 0,
    });
    expect((await broker.context.storage.topic('lists'))!.configs[name]).toBe('0:1,1:1,2:1');
    expect(await incremental(TOPIC, 'lists', [{ name, configOperation: SUBTRACT, value: '0:1' }])).toMatchObject({
      errorCode: 0,
    });
    expect((await broker.context.storage.topic('lists'))!.configs[name]).toBe('1:1,2:1');
    // cleanup.policy starts from its default, delete; appending compact makes it both (issue 17).
    expect(
      await incremental(TOPIC, 'lists', [{ name: 'cleanup.policy', configOperation: APPEND, value: 'compact' }]),
    ).toMatchObject({ errorCode: 0 });
    expect((await broker.context.storage.topic('lists'))!.configs['cleanup.policy']).toBe('delete,compact');
  });

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
