// The admin and offset APIs not covered by the client round trips: CreatePartitions,
// DeleteRecords, ListOffsets by time and max timestamp, AlterConfigs and IncrementalAlterConfigs,
// DescribeCluster, LogAppendTime, retention, and the long-poll fetch woken by an append.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch, readBatchHeader, TimestampType, timestampType } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';

describe('admin and offset APIs', () => {
  let broker: RunningBroker;
  let kafka: Kafka;
  let conn: KafkaConnection;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${tmp.dir}/admin.db`, { config: { retentionCheckIntervalMs: 100 } });
    kafka = new Kafka({ brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const produce = async (topic: string, partition: number, values: string[], timestamps?: bigint[]) => {
    const batch = encodeRecordBatch({
      records: values.map((v, i) => ({ value: Buffer.from(v), timestamp: timestamps?.[i] ?? BigInt(Date.now()) })),
    });
    const res = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
    });
    return res.responses[0].partitionResponses[0];
  };

  it('grows partitions, deletes records and finds offsets by time (kafkajs admin)', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'adm', numPartitions: 1 }] });
      await admin.createPartitions({ topicPartitions: [{ topic: 'adm', count: 3 }] });
      expect((await admin.fetchTopicMetadata({ topics: ['adm'] })).topics[0]!.partitions).toHaveLength(3);
      await expect(admin.createPartitions({ topicPartitions: [{ topic: 'adm', count: 2 }] })).rejects.toThrow();

      // Recent timestamps: older than retention.ms (7 days) would be deleted by the retention task.
      const base = Date.now() - 60_000;
      for (let i = 0; i < 4; i++) await produce('adm', 0, [`r${i}`], [BigInt(base + i * 1000)]);
      const byTime = await admin.fetchTopicOffsetsByTimestamp('adm', base + 1500);
      expect(byTime.find((p) => p.partition === 0)!.offset).toBe('2');
      await admin.deleteTopicRecords({ topic: 'adm', partitions: [{ partition: 0, offset: '2' }] });
      const offsets = await admin.fetchTopicOffsets('adm');
      expect(offsets.find((p) => p.partition === 0)).toEqual(expect.objectContaining({ low: '2', high: '4' }));

      await admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: 2, name: 'adm', configEntries: [{ name: 'retention.bytes', value: '123456' }] }],
      });
      const cfg = await admin.describeConfigs({ resources: [{ type: 2, name: 'adm' }], includeSynonyms: false });
      expect(cfg.resources[0]!.configEntries.find((e) => e.configName === 'retention.bytes')!.configValue).toBe(
        '123456',
      );
    } finally {
      await admin.disconnect();
    }
  });

  it('answers ListOffsets MAX_TIMESTAMP (-3) with the record holding the largest timestamp', async () => {
    await broker.context.storage.createTopic('maxts', 1, {});
    const base = BigInt(Date.now() - 60_000);
    await produce('maxts', 0, ['a', 'b', 'c'], [base + 5000n, base + 9000n, base + 7000n]);
    const res = await conn.send(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'maxts', partitions: [{ partitionIndex: 0, timestamp: -3n }] }],
    });
    expect(res.topics[0].partitions[0]).toEqual(
      expect.objectContaining({ errorCode: 0, offset: 1n, timestamp: base + 9000n }),
    );
  });

  it('answers a ListOffsets time past every record, or -3 on an empty log, with -1 offset, time and leader epoch (as Kafka 4.1)', async () => {
    await broker.context.storage.createTopic('lo-none', 2, {});
    const base = BigInt(Date.now() - 60_000);
    await produce('lo-none', 0, ['a'], [base]);
    const res = await conn.send(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [
        {
          name: 'lo-none',
          partitions: [
            { partitionIndex: 0, timestamp: base + 1000n },
            { partitionIndex: 1, timestamp: -3n },
          ],
        },
      ],
    });
    for (const p of res.topics[0].partitions)
      expect(p).toEqual(expect.objectContaining({ errorCode: 0, offset: -1n, timestamp: -1n, leaderEpoch: -1 }));
  });

  it('answers ListOffsets with a negative time that is no sentinel UNSUPPORTED_VERSION (as Kafka 4.1)', async () => {
    await broker.context.storage.createTopic('lo-neg', 1, {});
    const res = await conn.send(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'lo-neg', partitions: [{ partitionIndex: 0, timestamp: -7n }] }],
    });
    expect(res.topics[0].partitions[0]).toEqual(
      expect.objectContaining({ errorCode: ErrorCode.UNSUPPORTED_VERSION, offset: -1n, leaderEpoch: -1 }),
    );
  });

  it('answers DeleteRecords past the end or below -1 OFFSET_OUT_OF_RANGE with low watermark -1 (as Kafka 4.1)', async () => {
    await broker.context.storage.createTopic('dr-oor', 1, {});
    await produce('dr-oor', 0, ['a', 'b']);
    const del = (offset: bigint) =>
      conn.send(ApiKey.DeleteRecords, 2, {
        topics: [{ name: 'dr-oor', partitions: [{ partitionIndex: 0, offset }] }],
        timeoutMs: 5000,
      });
    for (const offset of [10n, -5n]) {
      expect((await del(offset)).topics[0].partitions[0]).toEqual({
        partitionIndex: 0,
        lowWatermark: -1n,
        errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
      });
    }
    expect((await del(1n)).topics[0].partitions[0]).toEqual({
      partitionIndex: 0,
      lowWatermark: 1n,
      errorCode: ErrorCode.NONE,
    });
  });

  it('answers CreateTopics like Kafka 4.1: a name given twice gets one INVALID_REQUEST and no topic, failures carry empty configs, a null config value is INVALID_CONFIG', async () => {
    await broker.context.storage.createTopic('ct-exists', 1, {});
    const topic = (name: string) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] });
    const res = await conn.send(ApiKey.CreateTopics, 7, {
      topics: [topic('ct-twice'), topic('ct-exists'), topic('ct-twice')],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(
      res.topics.map((t: { name: string; errorCode: number; configs: unknown }) => [t.name, t.errorCode, t.configs]),
    ).toEqual([
      ['ct-twice', ErrorCode.INVALID_REQUEST, []],
      ['ct-exists', ErrorCode.TOPIC_ALREADY_EXISTS, []],
    ]);
    expect(await broker.context.storage.topic('ct-twice')).toBeUndefined();
    const nullConfig = await conn.send(ApiKey.CreateTopics, 7, {
      topics: [{ ...topic('ct-null-config'), configs: [{ name: 'retention.ms', value: null }] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(nullConfig.topics[0]).toEqual(
      expect.objectContaining({
        errorCode: ErrorCode.INVALID_CONFIG,
        errorMessage: expect.stringContaining('retention.ms'),
      }),
    );
    expect(await broker.context.storage.topic('ct-null-config')).toBeUndefined();
  });

  it('applies IncrementalAlterConfigs and rejects unknown or unsupported configs', async () => {
    await broker.context.storage.createTopic('inc', 1, {});
    const alter = (configs: { name: string; configOperation: number; value: string | null }[]) =>
      conn.send(ApiKey.IncrementalAlterConfigs, 1, {
        resources: [{ resourceType: 2, resourceName: 'inc', configs }],
        validateOnly: false,
      });
    expect((await alter([{ name: 'retention.ms', configOperation: 0, value: '1000' }])).responses[0].errorCode).toBe(
      ErrorCode.NONE,
    );
    expect((await broker.context.storage.topic('inc'))!.configs['retention.ms']).toBe('1000');
    expect((await alter([{ name: 'retention.ms', configOperation: 1, value: null }])).responses[0].errorCode).toBe(
      ErrorCode.NONE,
    );
    expect((await broker.context.storage.topic('inc'))!.configs['retention.ms']).toBeUndefined();
    const compact = await alter([{ name: 'cleanup.policy', configOperation: 0, value: 'compact' }]);
    expect(compact.responses[0].errorCode).toBe(ErrorCode.NONE); // issue 17
    expect((await broker.context.storage.topic('inc'))!.configs['cleanup.policy']).toBe('compact');
    expect((await alter([{ name: 'no.such.config', configOperation: 0, value: '1' }])).responses[0].errorCode).toBe(
      ErrorCode.INVALID_CONFIG,
    );
  });

  it('describes the cluster with a stable id and this broker', async () => {
    const res = await conn.send(ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
    });
    expect(res).toEqual(
      expect.objectContaining({ errorCode: 0, clusterId: broker.context.identity.clusterId, controllerId: 1 }),
    );
    expect(res.brokers).toEqual([expect.objectContaining({ brokerId: 1, host: '127.0.0.1', port: broker.port })]);
  });

  it('stamps LogAppendTime topics with the broker time', async () => {
    await broker.context.storage.createTopic('lat', 1, { 'message.timestamp.type': 'LogAppendTime' });
    const before = Date.now();
    const r = await produce('lat', 0, ['x'], [42n]);
    expect(Number(r.logAppendTimeMs)).toBeGreaterThanOrEqual(before);
    const stored = (await broker.context.storage.read('lat', 0, 0, 1 << 20)).batches[0]!;
    const h = readBatchHeader(stored);
    expect(timestampType(h.attributes)).toBe(TimestampType.LogAppendTime);
    expect(h.maxTimestamp).toBe(r.logAppendTimeMs);
  });

  it('deletes expired batches in the background (retention.ms) and moves the log start', async () => {
    await broker.context.storage.createTopic('short', 1, { 'retention.ms': '1' });
    await produce('short', 0, ['old1'], [1000n]);
    await produce('short', 0, ['old2'], [2000n]);
    await produce('short', 0, ['new'], [BigInt(Date.now() + 3_600_000)]);
    for (let i = 0; i < 100 && (await broker.context.storage.offsets('short', 0))!.logStartOffset < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await broker.context.storage.offsets('short', 0)).toEqual({ logStartOffset: 2, highWatermark: 3 });
  });

  it('holds a fetch until an append arrives (long poll), then answers with it', async () => {
    await broker.context.storage.createTopic('poll', 1, {});
    const fetching = conn.send(ApiKey.Fetch, 11, {
      replicaId: -1,
      maxWaitMs: 60_000, // a missed wake-up would hold this past the test's timeout
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: 'poll',
          partitions: [
            { partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    await new Promise((r) => setTimeout(r, 100));
    const other = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const batch = encodeRecordBatch({ records: [{ value: Buffer.from('wake up') }] });
      await other.send(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 5000,
        topicData: [{ name: 'poll', partitionData: [{ index: 0, records: batch }] }],
      });
    } finally {
      other.close();
    }
    const res = await fetching;
    const p = res.responses[0].partitions[0];
    expect(p.highWatermark).toBe(1n);
    expect(p.records.length).toBeGreaterThan(61);
  }, 15_000);

  it('serves Fetch v13+ by topic id (KIP-516) and v12 by name', async () => {
    const t = await broker.context.storage.createTopic('byid', 1, {});
    await produce('byid', 0, ['first', 'second']);
    const fetch = (version: number, topic: { topic?: string; topicId?: string }) =>
      conn.send(ApiKey.Fetch, version, {
        replicaId: -1,
        replicaState: { replicaId: -1, replicaEpoch: -1n },
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            ...topic,
            partitions: [
              {
                partition: 0,
                currentLeaderEpoch: -1,
                fetchOffset: 0n,
                lastFetchedEpoch: -1,
                logStartOffset: -1n,
                partitionMaxBytes: 1 << 20,
              },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      });
    const v16 = await fetch(16, { topicId: t.topicId });
    expect(v16.responses[0].topicId).toBe(t.topicId);
    expect(v16.responses[0].partitions[0]).toEqual(expect.objectContaining({ errorCode: 0, highWatermark: 2n }));
    const v12 = await fetch(12, { topic: 'byid' });
    expect(v12.responses[0].partitions[0].records.equals(v16.responses[0].partitions[0].records)).toBe(true);
    const unknown = await fetch(13, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' });
    expect(unknown.responses[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_ID);
  });

  it('stores acks=0 produce without answering it, and keeps the connection in step', async () => {
    await broker.context.storage.createTopic('fire', 1, {});
    const batch = encodeRecordBatch({ records: [{ value: Buffer.from('no answer') }] });
    await conn.send(
      ApiKey.Produce,
      9,
      {
        transactionalId: null,
        acks: 0,
        timeoutMs: 5000,
        topicData: [{ name: 'fire', partitionData: [{ index: 0, records: batch }] }],
      },
      false,
    );
    // The next request's response must be its own (no stray Produce response in between).
    const res = await conn.send(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'fire', partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
    });
    expect(res.topics[0].partitions[0].offset).toBe(1n);
  });
});
