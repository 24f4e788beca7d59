// DescribeConfigs / AlterConfigs / IncrementalAlterConfigs of topics as Kafka answers them (issue 10
// item 5): what DescribeConfigs returns is accepted back unchanged, bad values get Kafka's texts and
// nothing is stored; the broker's own configs: configs-broker.test.ts.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';
import { APPEND, configRequests, DELETE, SET, Source, SUBTRACT, TOPIC } from './configs-kit';

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

  const { describeConfigs, alter, incremental, values } = configRequests(() => conn);

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
});
