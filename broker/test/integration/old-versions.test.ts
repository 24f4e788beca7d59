// The request versions Kafka 3.9 still served and 4.0 removed (KIP-896), over the wire: clients
// written for Kafka 3.x (sarama before 1.41 by default, kafka-python's and librdkafka's fallbacks)
// send them, and got a closed connection here before. Fetch v0-3 stay refused, with an error code.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

describe('old request versions (Kafka 3.9)', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
  });

  const produce = async (topic: string, timestamps: number[]) => {
    const records = encodeRecordBatch({
      records: timestamps.map((t) => ({ value: Buffer.from('v'), timestamp: BigInt(t) })),
    });
    const res = await conn.send(ApiKey.Produce, 3, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
    });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.NONE);
  };

  it('advertises them in ApiVersions', async () => {
    const res = await conn.send(ApiKey.ApiVersions, 0, {});
    const min = (key: number) => res.apiKeys.find((k: { apiKey: number }) => k.apiKey === key)!.minVersion;
    expect(
      [
        ApiKey.ListOffsets,
        ApiKey.OffsetCommit,
        ApiKey.OffsetFetch,
        ApiKey.CreateTopics,
        ApiKey.DeleteTopics,
        ApiKey.DescribeConfigs,
      ].map(min),
    ).toEqual([0, 0, 0, 0, 0, 0]);
    // Produce v0-2 and Fetch v0-3 are advertised so that they get an error code, not a closed connection.
    expect([ApiKey.Produce, ApiKey.Fetch].map(min)).toEqual([0, 0]);
  });

  it.each([0, 1, 2, 3])('Fetch v%i (message format 0/1) gets UNSUPPORTED_VERSION on every partition', async (v) => {
    await broker.context.storage.createTopic(`old-fetch-${v}`, 1, {});
    await produce(`old-fetch-${v}`, [Date.now()]);
    const res = await conn.send(ApiKey.Fetch, v, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      topics: [
        { topic: `old-fetch-${v}`, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] },
      ],
    });
    expect(res.responses[0].partitions[0]).toEqual(
      expect.objectContaining({ partitionIndex: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, highWatermark: -1n }),
    );
    expect(res.responses[0].partitions[0].records).toEqual(Buffer.alloc(0));
  });

  it('CreateTopics v0 creates; v1 validateOnly only checks; DeleteTopics v0 deletes', async () => {
    const v0 = await conn.send(ApiKey.CreateTopics, 0, {
      topics: [{ name: 'old-created', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
    });
    expect(v0.topics).toEqual([expect.objectContaining({ name: 'old-created', errorCode: ErrorCode.NONE })]);
    expect((await broker.context.storage.topic('old-created'))!.partitionCount).toBe(2);

    const dry = await conn.send(ApiKey.CreateTopics, 1, {
      topics: [{ name: 'old-dry', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: true,
    });
    expect(dry.topics[0]).toEqual(expect.objectContaining({ name: 'old-dry', errorCode: ErrorCode.NONE }));
    expect(await broker.context.storage.topic('old-dry')).toBeUndefined();
    const twice = await conn.send(ApiKey.CreateTopics, 1, {
      topics: [{ name: 'old-created', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: false,
    });
    expect(twice.topics[0]).toEqual(
      expect.objectContaining({
        errorCode: ErrorCode.TOPIC_ALREADY_EXISTS,
        errorMessage: expect.stringContaining('old-created'),
      }),
    );

    const del = await conn.send(ApiKey.DeleteTopics, 0, { topicNames: ['old-created', 'never-was'], timeoutMs: 1000 });
    expect(del.responses.map((r: { name: string; errorCode: number }) => [r.name, r.errorCode])).toEqual([
      ['old-created', ErrorCode.NONE],
      ['never-was', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(await broker.context.storage.topic('old-created')).toBeUndefined();
  });

  it('DescribeConfigs v0: isDefault for values from the defaults, no synonyms', async () => {
    await broker.context.storage.createTopic('old-configs', 1, { 'retention.ms': '60000' });
    const res = await conn.send(ApiKey.DescribeConfigs, 0, {
      resources: [
        { resourceType: 2, resourceName: 'old-configs', configurationKeys: ['retention.ms', 'cleanup.policy'] },
      ],
    });
    expect(res.results[0].errorCode).toBe(ErrorCode.NONE);
    const byName = Object.fromEntries(
      res.results[0].configs.map((c: { name: string; value: string; isDefault: boolean; synonyms: unknown[] }) => [
        c.name,
        [c.value, c.isDefault, c.synonyms],
      ]),
    );
    expect(byName).toEqual({ 'retention.ms': ['60000', false, []], 'cleanup.policy': ['delete', true, []] });
  });

  it('ListOffsets v0 answers oldStyleOffsets as a one-segment Kafka log does', async () => {
    await broker.context.storage.createTopic('old-offsets', 1, {});
    const lastRecordMs = Date.now() - 60_000;
    await produce('old-offsets', [lastRecordMs - 2000, lastRecordMs - 1000]);
    await produce('old-offsets', [lastRecordMs]);
    await broker.context.storage.createTopic('old-empty', 1, {});
    const ask = async (topic: string, timestamp: bigint, maxNumOffsets: number) => {
      const res = await conn.send(ApiKey.ListOffsets, 0, {
        replicaId: -1,
        topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp, maxNumOffsets }] }],
      });
      const p = res.topics[0].partitions[0];
      return p.errorCode === ErrorCode.NONE ? p.oldStyleOffsets.map(Number) : p.errorCode;
    };
    expect(await ask('old-offsets', -1n, 1)).toEqual([3]); // what old consumers ask: the log end
    expect(await ask('old-offsets', -1n, 10)).toEqual([3, 0]);
    expect(await ask('old-offsets', -2n, 10)).toEqual([0]);
    expect(await ask('old-offsets', BigInt(Date.now() + 60_000), 10)).toEqual([3, 0]);
    // Older than "now" but not than the segment's last write: the segment's base offset only.
    expect(await ask('old-offsets', BigInt(lastRecordMs + 1000), 10)).toEqual([0]);
    expect(await ask('old-offsets', BigInt(lastRecordMs - 1), 10)).toEqual([]);
    expect(await ask('old-offsets', -3n, 1)).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(await ask('old-empty', -1n, 5)).toEqual([0]);
    expect(await ask('no-such-topic', -1n, 1)).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('OffsetCommit v0 (ZooKeeper-stored in Kafka 3.x): UNSUPPORTED_VERSION per partition, as from a KRaft Kafka 3.9', async () => {
    await broker.context.storage.createTopic('old-commit', 1, {});
    const res = await conn.send(ApiKey.OffsetCommit, 0, {
      groupId: 'zk-group',
      topics: [{ name: 'old-commit', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: '' }] }],
    });
    expect(res.topics[0].partitions[0].errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(await broker.context.storage.fetchOffsets('zk-group')).toEqual([]);
  });
});
