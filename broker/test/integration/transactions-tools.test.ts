// Kafka's kafka-transactions tools for a hanging transaction (issue 30 item 1): describe-producers
// and find-hanging read DescribeProducers (key 61), abort writes an ABORT marker with
// WriteTxnMarkers (key 27) to the partition. Before, all three exited 1 ("The node does not support
// DESCRIBE_PRODUCERS"). minnow's storage cannot leave a transaction hanging (a partition joins a
// transaction in the same storage transaction as the coordinator's record of it), so find-hanging
// is shown finding none for an open transaction whose records are hours old, and abort is used on
// an open one, as an operator would on a hanging one.
import { Kafka, logLevel } from 'kafkajs';
import type { Producer } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kafkaCli, kafkaJars } from '../support/kafka-cli';
import { startTestBroker, tempDir } from './helpers';

const TOPIC = 'hanging';
const HOURS_AGO = Date.now() - 2 * 3600_000;

describeWithTools('java', 'mvn')("Kafka's kafka-transactions describe-producers, find-hanging, abort", () => {
  let broker: RunningBroker;
  let kafka: Kafka;
  let producer: Producer;
  let conn: KafkaConnection;
  const tmp = tempDir();
  const tool = (...args: string[]) =>
    kafkaCli('kafka-transactions', ['--bootstrap-server', `127.0.0.1:${broker.port}`, ...args]);
  /** describe-producers' rows as objects keyed by its (tab-separated) header. */
  const producers = async () => {
    const r = await tool('describe-producers', '--topic', TOPIC, '--partition', '0');
    expect(r.code).toBe(0);
    const [header, ...rows] = r.out
      .trim()
      .split('\n')
      .map((l) => l.split('\t').map((c) => c.trim()));
    return rows.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i]])));
  };
  const lastStable = async () => {
    const res = await conn.send(ApiKey.ListOffsets, 4, {
      replicaId: -1,
      isolationLevel: 1,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
    });
    return Number(res.topics[0].partitions[0].offset);
  };

  beforeAll(async () => {
    await kafkaJars();
    broker = await startTestBroker(`sqlite://${tmp.dir}/txn-tools.db`);
    kafka = new Kafka({ brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }] });
    await admin.disconnect();
    const plain = kafka.producer();
    await plain.connect();
    await plain.send({ topic: TOPIC, messages: [{ value: 'before' }] });
    await plain.disconnect();
    producer = kafka.producer({ transactionalId: 'stuck', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic: TOPIC, messages: ['a', 'b'].map((value) => ({ value, timestamp: String(HOURS_AGO) })) });
  }, 300_000);
  afterAll(async () => {
    await producer?.disconnect();
    conn?.close();
    await broker?.stop();
    tmp.cleanup();
  });

  it('describe-producers shows the open transaction and where it starts', async () => {
    expect(await producers()).toEqual([
      {
        ProducerId: expect.stringMatching(/^\d+$/),
        ProducerEpoch: '0',
        LatestCoordinatorEpoch: '0',
        LastSequence: '1',
        LastTimestamp: String(HOURS_AGO),
        CurrentTransactionStartOffset: '1',
      },
    ]);
  }, 60_000);

  it('find-hanging finds none: the coordinator knows the old transaction and its partition', async () => {
    const r = await tool('find-hanging', '--topic', TOPIC, '--max-transaction-timeout', '1');
    expect(r.err).not.toMatch(/Exception|not support/);
    expect(r.code).toBe(0);
    // The tool prints its header and no row when nothing hangs.
    const lines = r.out.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0]!.trim())).toEqual(['Topic']);
  }, 60_000);

  it('abort ends the transaction in the partition: read_committed moves past it', async () => {
    expect(await lastStable()).toBe(1);
    const r = await tool('abort', '--topic', TOPIC, '--partition', '0', '--start-offset', '1');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    // The ABORT marker sits at offset 3, after the two records: everything below 4 is stable.
    expect(await lastStable()).toBe(4);
    expect((await producers())[0]).toMatchObject({ CurrentTransactionStartOffset: 'None' });
    const res = await conn.send(ApiKey.Fetch, 11, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: TOPIC,
          partitions: [
            { partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(ErrorCode.NONE);
    expect(p.abortedTransactions).toEqual([{ producerId: expect.any(BigInt), firstOffset: 1n }]);
  }, 60_000);

  it('abort of an offset no transaction starts at fails clearly', async () => {
    const r = await tool('abort', '--topic', TOPIC, '--partition', '0', '--start-offset', '7');
    expect(r.code).toBe(1);
    expect(r.out + r.err).toContain('Could not find any open transactions starting at offset 7');
  }, 60_000);
});
