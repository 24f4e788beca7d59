// AlterPartitionReassignments (key 45) and ListPartitionReassignments (46) on one broker: the
// current replica set is a no-op, anything else INVALID_REPLICA_ASSIGNMENT with a message, a
// cancel NO_REASSIGNMENT_IN_PROGRESS; and Kafka's kafka-reassign-partitions --execute / --verify
// with a plan that keeps the replicas (accepted) and one that moves them (refused, exit 1).
// Before, key 45 closed the connection.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { AlterPartitionReassignmentsResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kafkaCli, kafkaJars } from '../support/kafka-cli';
import { startTestBroker, tempDir } from './helpers';

describe('partition reassignments on one broker', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${tmp.dir}/reassign.db`);
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const res = await conn.send(ApiKey.CreateTopics, 5, {
      topics: [{ name: 'moving', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(res.topics[0].errorCode).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const alter = (topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[]) =>
    conn.send<AlterPartitionReassignmentsResponse>(ApiKey.AlterPartitionReassignments, 0, { timeoutMs: 5000, topics });

  it('accepts the current replica set and refuses any other, saying why', async () => {
    const res = await alter([
      {
        name: 'moving',
        partitions: [
          { partitionIndex: 0, replicas: [1] },
          { partitionIndex: 1, replicas: [1, 2] },
        ],
      },
      { name: 'moving', partitions: [{ partitionIndex: 1, replicas: null }] },
      { name: 'moving', partitions: [{ partitionIndex: 0, replicas: [] }] },
      { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [1] }] },
    ]);
    expect(res.errorCode).toBe(ErrorCode.NONE);
    const outcomes = res.responses.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.errorCode]));
    expect(outcomes).toEqual([
      ['moving', 0, ErrorCode.NONE],
      ['moving', 1, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
      ['moving', 1, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS],
      ['moving', 0, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
      ['nope', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(res.responses[0]!.partitions[1]!.errorMessage).toContain('no such broker is registered');
    expect(res.responses[2]!.partitions[0]!.errorMessage).toContain('empty replica list');
  });

  it('refuses moving to a registered broker other than the leader with the replica set it keeps', async () => {
    // Broker 1 is the only one registered: [1, 1] is a repeated broker, and a set with the leader
    // and nothing else is the no-op.
    const res = await alter([{ name: 'moving', partitions: [{ partitionIndex: 0, replicas: [1, 1] }] }]);
    expect(res.responses[0]!.partitions[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      errorMessage: expect.stringContaining('more than once'),
    });
  });

  it('lists no reassignment', async () => {
    const res = await conn.send(ApiKey.ListPartitionReassignments, 0, { timeoutMs: 5000, topics: null });
    expect(res).toMatchObject({ errorCode: ErrorCode.NONE, topics: [] });
  });

  describeWithTools('java', 'mvn')("Kafka's kafka-reassign-partitions", () => {
    beforeAll(() => kafkaJars(), 300_000);
    const plan = (replicas: number[]) => {
      const file = path.join(tmp.dir, `plan-${replicas.join('-')}.json`);
      const partitions = [0, 1].map((partition) => ({ topic: 'moving', partition, replicas, log_dirs: ['any'] }));
      fs.writeFileSync(file, JSON.stringify({ version: 1, partitions }));
      return file;
    };
    const tool = (...args: string[]) =>
      kafkaCli('kafka-reassign-partitions', ['--bootstrap-server', `127.0.0.1:${broker.port}`, ...args]);

    it('executes and verifies a plan that keeps the replicas', async () => {
      const file = plan([1]);
      const run = await tool('--execute', '--reassignment-json-file', file);
      expect(run.err).not.toMatch(/Exception/);
      expect(run.code).toBe(0);
      expect(run.out).toContain('Successfully started partition reassignments for moving-0,moving-1');
      const verify = await tool('--verify', '--reassignment-json-file', file);
      expect(verify.code).toBe(0);
      expect(verify.out).toContain('Reassignment of partition moving-0 is completed.');
    }, 60_000);

    it('refuses a plan naming a broker that is not there (the tool checks DescribeCluster first)', async () => {
      const run = await tool('--execute', '--reassignment-json-file', plan([2]));
      expect(run.code).toBe(1);
      expect(run.out + run.err).toContain('Unknown broker id 2');
    }, 60_000);
  });
});
