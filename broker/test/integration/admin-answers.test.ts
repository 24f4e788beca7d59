// Admin APIs tools send that one broker without an authorizer answers as Kafka would, instead of
// closing the connection: the ACL APIs (SECURITY_DISABLED), ListPartitionReassignments (nothing is
// ever reassigned) and ElectLeaders (ELECTION_NOT_NEEDED). Unknown API keys still close it.
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Admin, Kafka, logLevel, ResourcePatternTypes } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

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

describe('admin APIs answered with Kafka errors', () => {
  let broker: RunningBroker;
  let admin: Admin;
  let conn: KafkaConnection;
  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    broker.context.storage.createTopic('t', 2, {});
    admin = new Kafka({ brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    await admin.connect();
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await admin.disconnect();
    await broker.stop();
  });

  it('answers the kafkajs ACL calls with SECURITY_DISABLED (no authorizer), and keeps the connection', async () => {
    await expect(admin.describeAcls(ACL_FILTER)).rejects.toMatchObject({ type: 'SECURITY_DISABLED' });
    const acl = { ...ACL_FILTER, resourceType: AclResourceTypes.TOPIC, resourcePatternType: ResourcePatternTypes.LITERAL, operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW };
    await expect(admin.createAcls({ acl: [acl] })).rejects.toMatchObject({ type: 'SECURITY_DISABLED' });
    await expect(admin.deleteAcls({ filters: [ACL_FILTER] })).rejects.toMatchObject({ type: 'SECURITY_DISABLED' });
    expect((await admin.listTopics()).sort()).toEqual(['t']);
  });

  it.each([1, 2, 3])('answers DescribeAcls, CreateAcls and DeleteAcls v%i in their own response shapes', async (v) => {
    const filter = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };
    const described = await conn.send(ApiKey.DescribeAcls, v, filter);
    expect(described).toEqual(expect.objectContaining({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured on the broker', resources: [] }));
    const creation = { resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3 };
    const created = await conn.send(ApiKey.CreateAcls, v, { creations: [creation, creation] });
    expect(created.results).toEqual([0, 1].map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' })));
    const deleted = await conn.send(ApiKey.DeleteAcls, v, { filters: [filter] });
    expect(deleted.filterResults).toEqual([{ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.', matchingAcls: [] }]);
  });

  it('lists no partition reassignments (kafkajs listPartitionReassignments)', async () => {
    await expect(admin.listPartitionReassignments({})).resolves.toEqual({ topics: [] });
    await expect(admin.listPartitionReassignments({ topics: [{ topic: 't', partitions: [0, 1] }] })).resolves.toEqual({ topics: [] });
  });

  it.each([0, 1, 2])('answers ElectLeaders v%i: ELECTION_NOT_NEEDED for existing partitions, UNKNOWN_TOPIC_OR_PARTITION otherwise', async (v) => {
    const res = await conn.send(ApiKey.ElectLeaders, v, { electionType: 0, topicPartitions: [{ topic: 't', partitions: [0, 1, 2] }, { topic: 'nope', partitions: [0] }], timeoutMs: 5000 });
    const codes = res.replicaElectionResults.map((t: { topic: string; partitionResult: { partitionId: number; errorCode: number }[] }) => [t.topic, t.partitionResult.map((p) => [p.partitionId, p.errorCode])]);
    expect(codes).toEqual([
      ['t', [[0, ErrorCode.ELECTION_NOT_NEEDED], [1, ErrorCode.ELECTION_NOT_NEEDED], [2, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
    ]);
    const all = await conn.send(ApiKey.ElectLeaders, v, { electionType: 0, topicPartitions: null, timeoutMs: 5000 });
    expect(all.replicaElectionResults).toEqual([{ topic: 't', partitionResult: [] }]);
  });

  it('advertises exactly the ranges it serves, none with a min above its max', async () => {
    const res = await conn.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const byKey = new Map(res.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(byKey.get(ApiKey.DescribeAcls)).toEqual([1, 3]);
    expect(byKey.get(ApiKey.CreateAcls)).toEqual([1, 3]);
    expect(byKey.get(ApiKey.DeleteAcls)).toEqual([1, 3]);
    expect(byKey.get(ApiKey.ElectLeaders)).toEqual([0, 2]);
    expect(byKey.get(ApiKey.ListPartitionReassignments)).toEqual([0, 0]);
    for (const [min, max] of byKey.values() as Iterable<[number, number]>) expect(min).toBeLessThanOrEqual(max);
  });
});
