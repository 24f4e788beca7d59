// Admin APIs tools send that one broker answers as Kafka would, instead of closing the connection:
// the ACL APIs (acl.test.ts has their semantics), ListPartitionReassignments (nothing is
// ever reassigned), ElectLeaders (ELECTION_NOT_NEEDED), DescribeLogDirs (the database as the one
// log dir) and ListTransactions (none yet). Unknown API keys still close it (bad-input.test).
import * as path from 'node:path';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Admin,
  Kafka,
  logLevel,
  ResourcePatternTypes,
} from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';

/** kafkajs insists on strings where the protocol allows null ("any"). */
const ACL_FILTER = {
  resourceType: AclResourceTypes.ANY,
  resourceName: 't',
  resourcePatternType: ResourcePatternTypes.ANY,
  principal: 'User:alice',
  host: '*',
  operation: AclOperationTypes.ANY,
  permissionType: AclPermissionTypes.ANY,
};

const batchOf = (value: string) =>
  encodeRecordBatch({ records: [{ value: Buffer.from(value), timestamp: BigInt(Date.now()) }] });

describe('admin APIs answered with Kafka errors', () => {
  let broker: RunningBroker;
  let admin: Admin;
  let conn: KafkaConnection;
  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    await broker.context.storage.createTopic('t', 2, {});
    admin = new Kafka({
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin();
    await admin.connect();
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await admin.disconnect();
    await broker.stop();
  });

  it('creates, describes and deletes ACLs through the kafkajs admin, and keeps the connection', async () => {
    const acl = {
      ...ACL_FILTER,
      resourceName: 'kafkajs-acl',
      resourceType: AclResourceTypes.TOPIC,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      operation: AclOperationTypes.READ,
      permissionType: AclPermissionTypes.ALLOW,
    };
    const filter = { ...ACL_FILTER, resourceName: 'kafkajs-acl' };
    await admin.createAcls({ acl: [acl] });
    await expect(admin.describeAcls(filter)).resolves.toMatchObject({
      resources: [
        {
          resourceType: AclResourceTypes.TOPIC,
          resourceName: 'kafkajs-acl',
          resourcePatternType: ResourcePatternTypes.LITERAL,
          acls: [
            {
              principal: 'User:alice',
              host: '*',
              operation: AclOperationTypes.READ,
              permissionType: AclPermissionTypes.ALLOW,
            },
          ],
        },
      ],
    });
    const deleted = await admin.deleteAcls({ filters: [filter] });
    expect(deleted.filterResponses[0]!.matchingAcls).toHaveLength(1);
    await expect(admin.describeAcls(filter)).resolves.toMatchObject({ resources: [] });
    expect((await admin.listTopics()).sort()).toEqual(['t']);
  });

  it.each([1, 2, 3])('answers DescribeAcls, CreateAcls and DeleteAcls v%i in their own response shapes', async (v) => {
    const name = `shape-v${v}`;
    const filter = {
      resourceTypeFilter: 1,
      resourceNameFilter: name,
      patternTypeFilter: 1,
      principalFilter: null,
      hostFilter: null,
      operation: 1,
      permissionType: 1,
    };
    const creation = {
      resourceType: 2,
      resourceName: name,
      resourcePatternType: 3,
      principal: 'User:alice',
      host: '*',
      operation: 3,
      permissionType: 3,
    };
    // Kafka stores a binding once, and answers success for the copy too. Its successful CreateAcls
    // and DescribeAcls leave the error message at the generated default, "" (the compat run's `acls`
    // scenario sees it sent); DeleteAcls sets ApiError's, null.
    const created = await conn.send(ApiKey.CreateAcls, v, { creations: [creation, creation] });
    expect(created.results).toEqual([0, 1].map(() => ({ errorCode: ErrorCode.NONE, errorMessage: '' })));
    const described = await conn.send(ApiKey.DescribeAcls, v, filter);
    expect(described).toEqual(
      expect.objectContaining({
        errorCode: ErrorCode.NONE,
        errorMessage: '',
        resources: [
          {
            resourceType: 2,
            resourceName: name,
            patternType: 3,
            acls: [{ principal: 'User:alice', host: '*', operation: 3, permissionType: 3 }],
          },
        ],
      }),
    );
    const deleted = await conn.send(ApiKey.DeleteAcls, v, { filters: [filter] });
    expect(deleted.filterResults).toEqual([
      {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        matchingAcls: [
          { errorCode: 0, errorMessage: null, ...creation, patternType: 3, resourcePatternType: undefined },
        ],
      },
    ]);
  });

  it('lists no partition reassignments (kafkajs listPartitionReassignments)', async () => {
    await expect(admin.listPartitionReassignments({})).resolves.toEqual({ topics: [] });
    await expect(admin.listPartitionReassignments({ topics: [{ topic: 't', partitions: [0, 1] }] })).resolves.toEqual({
      topics: [],
    });
  });

  it.each([0, 1, 2])(
    'answers ElectLeaders v%i: ELECTION_NOT_NEEDED for existing partitions, UNKNOWN_TOPIC_OR_PARTITION otherwise',
    async (v) => {
      const res = await conn.send(ApiKey.ElectLeaders, v, {
        electionType: 0,
        topicPartitions: [
          { topic: 't', partitions: [0, 1, 2] },
          { topic: 'nope', partitions: [0] },
        ],
        timeoutMs: 5000,
      });
      const codes = res.replicaElectionResults.map(
        (t: { topic: string; partitionResult: { partitionId: number; errorCode: number }[] }) => [
          t.topic,
          t.partitionResult.map((p) => [p.partitionId, p.errorCode]),
        ],
      );
      expect(codes).toEqual([
        [
          't',
          [
            [0, ErrorCode.ELECTION_NOT_NEEDED],
            [1, ErrorCode.ELECTION_NOT_NEEDED],
            [2, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
          ],
        ],
        ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ]);
      const all = await conn.send(ApiKey.ElectLeaders, v, { electionType: 0, topicPartitions: null, timeoutMs: 5000 });
      expect(all.replicaElectionResults).toEqual([{ topic: 't', partitionResult: [] }]);
    },
  );

  it.each([1, 2, 3, 4])('describes the log dir v%i: partition sizes, unknown partitions left out', async (v) => {
    const produced = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: 't', partitionData: [{ index: 1, records: batchOf('x') }] }],
    });
    expect(produced.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.NONE);
    const size = BigInt(
      (await broker.context.storage.read('t', 1, 0, 1 << 30)).batches.reduce((n, b) => n + b.length, 0),
    );
    const res = await conn.send(ApiKey.DescribeLogDirs, v, {
      topics: [
        { topic: 't', partitions: [0, 1, 7] },
        { topic: 'nope', partitions: [0] },
      ],
    });
    expect(res.results).toHaveLength(1);
    expect(res.results[0]).toEqual(
      expect.objectContaining({
        errorCode: ErrorCode.NONE,
        logDir: 'memory://',
        topics: [
          {
            name: 't',
            partitions: [
              expect.objectContaining({ partitionIndex: 0, partitionSize: 0n, offsetLag: 0n }),
              expect.objectContaining({ partitionIndex: 1, partitionSize: size, isFutureKey: false }),
            ],
          },
        ],
      }),
    );
    if (v >= 4) expect(res.results[0]).toEqual(expect.objectContaining({ totalBytes: -1n, usableBytes: -1n }));
    const all = await conn.send(ApiKey.DescribeLogDirs, v, { topics: null });
    expect(
      all.results[0].topics.map((t: { name: string; partitions: unknown[] }) => [t.name, t.partitions.length]),
    ).toEqual([['t', 2]]);
  });

  it('names the SQLite file as the log dir, with its volume sizes (v4)', async () => {
    const tmp = tempDir();
    const sqlite = await startTestBroker(`sqlite://${tmp.dir}/dirs.db`);
    const c = await KafkaConnection.connect('127.0.0.1', sqlite.port);
    try {
      const res = await c.send(ApiKey.DescribeLogDirs, 4, { topics: null });
      expect(res.results[0].logDir).toBe(path.join(tmp.dir, 'dirs.db'));
      expect(res.results[0].totalBytes).toBeGreaterThan(0n);
      expect(res.results[0].usableBytes).toBeGreaterThanOrEqual(0n);
      expect(res.results[0].usableBytes).toBeLessThanOrEqual(res.results[0].totalBytes);
    } finally {
      c.close();
      await sqlite.stop();
      tmp.cleanup();
    }
  });

  it.each([0, 1])(
    'lists no transactions (ListTransactions v%i), echoing the state filters Kafka does not know',
    async (v) => {
      const res = await conn.send(ApiKey.ListTransactions, v, {
        stateFilters: ['Ongoing', 'Bogus'],
        producerIdFilters: [7n],
        durationFilter: -1n,
      });
      expect(res).toEqual(
        expect.objectContaining({ errorCode: ErrorCode.NONE, unknownStateFilters: ['Bogus'], transactionStates: [] }),
      );
    },
  );

  it('advertises exactly the ranges it serves, none with a min above its max', async () => {
    const res = await conn.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const byKey = new Map(
      res.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [
        k.apiKey,
        [k.minVersion, k.maxVersion],
      ]),
    );
    expect(byKey.get(ApiKey.DescribeAcls)).toEqual([1, 3]);
    expect(byKey.get(ApiKey.CreateAcls)).toEqual([1, 3]);
    expect(byKey.get(ApiKey.DeleteAcls)).toEqual([1, 3]);
    expect(byKey.get(ApiKey.ElectLeaders)).toEqual([0, 2]);
    expect(byKey.get(ApiKey.ListPartitionReassignments)).toEqual([0, 0]);
    expect(byKey.get(ApiKey.DescribeLogDirs)).toEqual([1, 4]);
    expect(byKey.get(ApiKey.ListTransactions)).toEqual([0, 1]);
    for (const [min, max] of byKey.values() as Iterable<[number, number]>) expect(min).toBeLessThanOrEqual(max);
  });
});
