// DescribeTopicPartitions (key 75, KIP-966): the paging of Kafka's handler (cursor, partition
// limit, sorted topics), ELR lists empty rather than null, and Kafka 4's kafka-topics --describe,
// which uses it (without it, the tool falls back to Metadata and prints "Elr: N/A").
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { DescribeTopicPartitionsResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kafkaCli, kafkaJars } from '../support/kafka-cli';
import { startTestBroker, tempDir } from './helpers';

describe('DescribeTopicPartitions', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${tmp.dir}/dtp.db`);
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    for (const [name, partitions] of [
      ['dtp-a', 3],
      ['dtp-b', 2],
      ['dtp-c', 1],
    ] as const) {
      const res = await conn.send(ApiKey.CreateTopics, 5, {
        topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 5000,
        validateOnly: false,
      });
      expect(res.topics[0].errorCode).toBe(ErrorCode.NONE);
    }
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const describeTopics = (
    names: string[],
    limit: number,
    cursor: { topicName: string; partitionIndex: number } | null = null,
  ): Promise<DescribeTopicPartitionsResponse> =>
    conn.send(ApiKey.DescribeTopicPartitions, 0, {
      topics: names.map((name) => ({ name })),
      responsePartitionLimit: limit,
      cursor,
    });
  const shape = (r: DescribeTopicPartitionsResponse) =>
    r.topics.map((t) => [t.name, t.errorCode, t.partitions.map((p) => p.partitionIndex)]);

  it('is advertised', async () => {
    const res = await conn.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    expect(res.apiKeys).toContainEqual({ apiKey: ApiKey.DescribeTopicPartitions, minVersion: 0, maxVersion: 0 });
  });

  it('pages through every topic with the cursor, as Kafka does', async () => {
    const first = await describeTopics([], 2);
    expect(shape(first)).toEqual([['dtp-a', 0, [0, 1]]]);
    expect(first.nextCursor).toEqual({ topicName: 'dtp-a', partitionIndex: 2 });
    const second = await describeTopics([], 2, first.nextCursor!);
    expect(shape(second)).toEqual([
      ['dtp-a', 0, [2]],
      ['dtp-b', 0, [0]],
    ]);
    expect(second.nextCursor).toEqual({ topicName: 'dtp-b', partitionIndex: 1 });
    const third = await describeTopics([], 2, second.nextCursor!);
    expect(shape(third)).toEqual([
      ['dtp-b', 0, [1]],
      ['dtp-c', 0, [0]],
    ]);
    // The limit is reached exactly at the end of dtp-c: no topic is left, so no cursor.
    expect(third.nextCursor).toBeNull();
    // A page ending on a topic boundary points at the next topic's partition 0.
    const boundary = await describeTopics([], 3);
    expect(shape(boundary)).toEqual([['dtp-a', 0, [0, 1, 2]]]);
    expect(boundary.nextCursor).toEqual({ topicName: 'dtp-b', partitionIndex: 0 });
  });

  it('answers named topics sorted, with unknown ones, and ELR lists empty (not null)', async () => {
    const res = await describeTopics(['dtp-c', 'nope', 'dtp-a', 'bad/name'], 2000);
    expect(shape(res)).toEqual([
      ['bad/name', ErrorCode.INVALID_TOPIC_EXCEPTION, []],
      ['dtp-a', 0, [0, 1, 2]],
      ['dtp-c', 0, [0]],
      ['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []],
    ]);
    expect(res.nextCursor).toBeNull();
    const p = res.topics[1]!.partitions[0]!;
    expect(p).toMatchObject({ leaderId: 1, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] });
    expect(p.eligibleLeaderReplicas).toEqual([]);
    expect(p.lastKnownElr).toEqual([]);
    expect(res.topics[1]!.topicAuthorizedOperations).toBeGreaterThan(0);
  });

  it('refuses a cursor outside the named topics, or a negative cursor partition (INVALID_REQUEST)', async () => {
    const outside = await describeTopics(['dtp-a'], 10, { topicName: 'dtp-b', partitionIndex: 0 });
    expect(shape(outside)).toEqual([['dtp-a', ErrorCode.INVALID_REQUEST, []]]);
    const negative = await describeTopics(['dtp-a'], 10, { topicName: 'dtp-a', partitionIndex: -1 });
    expect(shape(negative)).toEqual([['dtp-a', ErrorCode.INVALID_REQUEST, []]]);
  });

  describeWithTools('java', 'mvn')("Kafka's kafka-topics", () => {
    beforeAll(() => kafkaJars(), 300_000);

    it('describes partitions with their (empty) ELR, not N/A', async () => {
      const r = await kafkaCli('kafka-topics', ['--bootstrap-server', `127.0.0.1:${broker.port}`, '--describe']);
      expect(r.code).toBe(0);
      const rows = r.out.split('\n').filter((l) => l.includes('Partition: '));
      expect(rows).toHaveLength(6);
      const row = rows.find((l) => l.includes('Topic: dtp-a\tPartition: 0\t'));
      expect(row?.split('\t').map((c) => c.trim())).toEqual([
        '',
        'Topic: dtp-a',
        'Partition: 0',
        'Leader: 1',
        'Replicas: 1',
        'Isr: 1',
        'Elr:',
        'LastKnownElr:',
      ]);
    }, 60_000);
  });
});
