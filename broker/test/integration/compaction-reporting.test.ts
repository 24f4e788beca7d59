// Compaction reporting (issue 17): DescribeConfigs gives the effective value and source of each
// compaction setting (topic override, dynamic cluster-wide default, Kafka's default) with its
// synonyms, as Kafka's ConfigHelper does; `minnow topic describe` shows per partition of a
// compacted topic the dirty ratio, the clean offset and the last compaction.
import { KafkaClient } from '../../src/client/client';
import { KafkaConnection } from '../../src/client/connection';
import { topicCommand } from '../../src/cli/topic';
import { ApiKey } from '../../src/protocol/api-keys';
import { CLEANER_STATE_KEY } from '../../src/protocol/cleaner-state';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { Engine, startTestBroker, storageUrlFor, tempDir } from './helpers';

const TOPIC = 2;
const BROKER = 4;
const Source = { TOPIC_CONFIG: 1, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, DEFAULT_CONFIG: 5 };
const SET = 0;
const DELETE = 1;
const LONG_MAX = '9223372036854775807';
const CLEANER: object = { logCleanerBackoffMs: 100 };
const COMPACTION = [
  'cleanup.policy',
  'delete.retention.ms',
  'min.compaction.lag.ms',
  'max.compaction.lag.ms',
  'min.cleanable.dirty.ratio',
];

interface Entry {
  name: string;
  value: string | null;
  configSource: number;
  synonyms: { name: string; value: string | null; source: number }[];
}

describe.each<Engine>(['memory', 'sqlite'])('compaction reporting on %s storage', (engine) => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  let client: KafkaClient;
  let bootstrap: string;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir), { config: { ...CLEANER } });
    bootstrap = `127.0.0.1:${broker.port}`;
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    client = new KafkaClient(bootstrap);
  });
  afterAll(async () => {
    client.close();
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const describeTopic = async (name: string, keys: string[] | null = COMPACTION): Promise<Record<string, Entry>> => {
    const res = await conn.send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: TOPIC, resourceName: name, configurationKeys: keys }],
      includeSynonyms: true,
      includeDocumentation: false,
    });
    expect(res.results[0].errorCode).toBe(ErrorCode.NONE);
    return Object.fromEntries((res.results[0].configs as Entry[]).map((e) => [e.name, e]));
  };
  const incremental = async (
    resourceType: number,
    resourceName: string,
    configs: { name: string; configOperation: number; value: string | null }[],
  ) => {
    const res = await conn.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType, resourceName, configs }],
      validateOnly: false,
    });
    return res.responses[0].errorCode as number;
  };
  const valueAndSource = (entries: Record<string, Entry>) =>
    Object.fromEntries(Object.entries(entries).map(([k, e]) => [k, [e.value, e.configSource]]));

  it("reports Kafka's defaults, topic overrides and their synonyms", async () => {
    await client.createTopic('plain', 1, {});
    expect(valueAndSource(await describeTopic('plain'))).toEqual({
      'cleanup.policy': ['delete', Source.DEFAULT_CONFIG],
      'delete.retention.ms': ['86400000', Source.DEFAULT_CONFIG],
      'min.compaction.lag.ms': ['0', Source.DEFAULT_CONFIG],
      'max.compaction.lag.ms': [LONG_MAX, Source.DEFAULT_CONFIG],
      'min.cleanable.dirty.ratio': ['0.5', Source.DEFAULT_CONFIG],
    });
    await client.createTopic('overridden', 1, {
      'cleanup.policy': 'compact,delete',
      'delete.retention.ms': '1000',
      'min.compaction.lag.ms': '5000',
      'max.compaction.lag.ms': '60000',
      'min.cleanable.dirty.ratio': '0.1',
    });
    const o = await describeTopic('overridden');
    expect(valueAndSource(o)).toEqual({
      'cleanup.policy': ['compact,delete', Source.TOPIC_CONFIG],
      'delete.retention.ms': ['1000', Source.TOPIC_CONFIG],
      'min.compaction.lag.ms': ['5000', Source.TOPIC_CONFIG],
      'max.compaction.lag.ms': ['60000', Source.TOPIC_CONFIG],
      'min.cleanable.dirty.ratio': ['0.1', Source.TOPIC_CONFIG],
    });
    // The broker-level names under the override, as Kafka lists them (ServerTopicConfigSynonyms).
    expect(o['delete.retention.ms']!.synonyms).toEqual([
      { name: 'delete.retention.ms', value: '1000', source: Source.TOPIC_CONFIG },
      { name: 'log.cleaner.delete.retention.ms', value: '86400000', source: Source.DEFAULT_CONFIG },
    ]);
    expect(o['min.cleanable.dirty.ratio']!.synonyms.map((s) => s.name)).toEqual([
      'min.cleanable.dirty.ratio',
      'log.cleaner.min.cleanable.ratio',
    ]);
    expect(o['cleanup.policy']!.synonyms.map((s) => s.name)).toEqual(['cleanup.policy', 'log.cleanup.policy']);
  });

  it('reports cluster-wide dynamic defaults, and an altered policy', async () => {
    const defaults = [
      { name: 'log.cleaner.delete.retention.ms', value: '5000' },
      { name: 'log.cleaner.min.compaction.lag.ms', value: '100' },
      { name: 'log.cleaner.max.compaction.lag.ms', value: '600000' },
      { name: 'log.cleaner.min.cleanable.ratio', value: '0.25' },
      { name: 'log.cleanup.policy', value: 'compact' },
    ];
    expect(
      await incremental(
        BROKER,
        '',
        defaults.map((d) => ({ ...d, configOperation: SET })),
      ),
    ).toBe(ErrorCode.NONE);
    try {
      await client.createTopic('by-default', 1, {});
      const d = await describeTopic('by-default');
      expect(valueAndSource(d)).toEqual({
        'cleanup.policy': ['compact', Source.DYNAMIC_DEFAULT_BROKER_CONFIG],
        'delete.retention.ms': ['5000', Source.DYNAMIC_DEFAULT_BROKER_CONFIG],
        'min.compaction.lag.ms': ['100', Source.DYNAMIC_DEFAULT_BROKER_CONFIG],
        'max.compaction.lag.ms': ['600000', Source.DYNAMIC_DEFAULT_BROKER_CONFIG],
        'min.cleanable.dirty.ratio': ['0.25', Source.DYNAMIC_DEFAULT_BROKER_CONFIG],
      });
      expect(d['delete.retention.ms']!.synonyms).toEqual([
        { name: 'log.cleaner.delete.retention.ms', value: '5000', source: Source.DYNAMIC_DEFAULT_BROKER_CONFIG },
        { name: 'log.cleaner.delete.retention.ms', value: '86400000', source: Source.DEFAULT_CONFIG },
      ]);
      // A topic override still wins over the cluster default.
      await client.createTopic('override-wins', 1, { 'delete.retention.ms': '7000' });
      expect((await describeTopic('override-wins'))['delete.retention.ms']).toMatchObject({
        value: '7000',
        configSource: Source.TOPIC_CONFIG,
      });
    } finally {
      await incremental(
        BROKER,
        '',
        defaults.map((d) => ({ name: d.name, configOperation: DELETE, value: null })),
      );
    }
    // Altering a delete topic to compact, and back.
    await client.createTopic('altered', 1, {});
    expect(
      await incremental(TOPIC, 'altered', [{ name: 'cleanup.policy', configOperation: SET, value: 'compact' }]),
    ).toBe(ErrorCode.NONE);
    expect((await describeTopic('altered'))['cleanup.policy']).toMatchObject({
      value: 'compact',
      configSource: Source.TOPIC_CONFIG,
    });
    expect(
      await incremental(TOPIC, 'altered', [{ name: 'cleanup.policy', configOperation: DELETE, value: null }]),
    ).toBe(ErrorCode.NONE);
    expect((await describeTopic('altered'))['cleanup.policy']).toMatchObject({
      value: 'delete',
      configSource: Source.DEFAULT_CONFIG,
    });
  });

  it('minnow topic describe shows the dirty ratio and the last compaction of each partition', async () => {
    await client.createTopic('described', 2, {
      'cleanup.policy': 'compact',
      'min.compaction.lag.ms': '0',
      'min.cleanable.dirty.ratio': '0.01',
    });
    await client.topic('described');
    const describe = async () => {
      const lines: string[] = [];
      expect(await topicCommand(['describe', 'described', '--bootstrap-server', bootstrap], (l) => lines.push(l))).toBe(
        0,
      );
      return JSON.parse(lines.join('\n')) as { partitions: any[] };
    };
    // Partition 1 untouched: nothing to clean, never cleaned.
    const before = await describe();
    expect(before.partitions[1]).toMatchObject({ dirtyRatio: 0, cleanOffset: 0, lastCompaction: null });
    // Partition 0: 10 batches rewriting the same 20 keys, then one more batch (the head stays dirty).
    for (let round = 0; round < 11; round++) {
      const records = Array.from({ length: 20 }, (_, k) => ({
        key: Buffer.from(`k${k}`),
        value: Buffer.from(`round ${round} ${'x'.repeat(200)}`),
      }));
      await client.produce('described', 0, 1, encodeRecordBatch({ records }), -1);
    }
    let p0: any;
    for (let i = 0; i < 150; i++) {
      p0 = (await describe()).partitions[0];
      // A pass may run between two produce requests and remove nothing yet: wait for one that did.
      if (p0.lastCompaction && p0.lastCompaction.bytesAfter < p0.lastCompaction.bytesBefore) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(p0).toMatchObject({ partition: 0, earliestOffset: 0, latestOffset: 220 });
    expect(p0.cleanOffset).toBeGreaterThan(0);
    expect(p0.cleanOffset).toBeLessThanOrEqual(200);
    expect(p0.dirtyRatio).toBeGreaterThanOrEqual(0);
    expect(p0.dirtyRatio).toBeLessThan(1);
    expect(new Date(p0.lastCompaction.at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(p0.lastCompaction.bytesAfter).toBeLessThan(p0.lastCompaction.bytesBefore);
    // A delete-policy topic has no compaction fields.
    await client.createTopic('not-compacted', 1, {});
    const lines: string[] = [];
    await topicCommand(['describe', 'not-compacted', '--bootstrap-server', bootstrap], (l) => lines.push(l));
    expect(Object.keys(JSON.parse(lines.join('\n')).partitions[0])).toEqual([
      'partition',
      'leader',
      'earliestOffset',
      'latestOffset',
      'messages',
    ]);
  });

  it('answers the cleaner state only when it is named', async () => {
    const all = await describeTopic('described', null);
    expect(Object.keys(all)).toHaveLength(33);
    expect(all[CLEANER_STATE_KEY]).toBeUndefined();
    const named = await describeTopic('described', [CLEANER_STATE_KEY]);
    expect(named[CLEANER_STATE_KEY]!.configSource).toBe(Source.DEFAULT_CONFIG);
    const state = JSON.parse(named[CLEANER_STATE_KEY]!.value!);
    expect(state.map((s: { partition: number }) => s.partition)).toEqual([0, 1]);
  });
});
