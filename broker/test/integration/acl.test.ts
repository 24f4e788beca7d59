// Authorization end to end (issue 13): a principal without ACLs is refused every API it may not
// use, with Kafka's error in Kafka's place, and nothing changes; a super user is not; ACLs created
// through kafkajs' admin.createAcls open exactly what they name, for kafkajs and kcat alike.
// Until SASL sets principals, the broker's test-only hook gives a connection its principal from
// its client id (StartOptions.testOnlyPrincipalForClientId).
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  ResourcePatternTypes,
} from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { engineOf, kcat, startTestBroker } from './helpers';

const PRINCIPALS: Record<string, string> = { admin: 'admin', mallory: 'mallory' };

async function start(): Promise<RunningBroker> {
  return startTestBroker('memory://', {
    config: { allowEveryoneIfNoAclFound: false, superUsers: ['User:admin'], groupInitialRebalanceDelayMs: 0 },
    testOnlyPrincipalForClientId: (clientId) =>
      clientId && PRINCIPALS[clientId] ? { principalType: 'User', name: PRINCIPALS[clientId]! } : undefined,
  });
}

const batch = () => encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] });
const G = 'g';

/** One request per API an ACL-less principal may not use, and where its error lands. */
const REFUSALS: {
  api: string;
  key: number;
  v: number;
  body: () => unknown;
  codes: (res: any) => unknown;
  want: number[];
}[] = [
  {
    api: 'Produce',
    key: ApiKey.Produce,
    v: 9,
    body: () => ({
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: 't', partitionData: [{ index: 0, records: batch() }] }],
    }),
    codes: (r) => r.responses.flatMap((t: any) => t.partitionResponses.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'Fetch',
    key: ApiKey.Fetch,
    v: 12,
    body: () => ({
      ...m.defaultFetchRequest(),
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [
        { topic: 't', topicId: ZERO_UUID, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] },
      ],
    }),
    codes: (r) => r.responses.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'ListOffsets',
    key: ApiKey.ListOffsets,
    v: 7,
    body: () => ({
      ...m.defaultListOffsetsRequest(),
      replicaId: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
    }),
    codes: (r) => r.topics.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'Metadata (named, and one to auto-create)',
    key: ApiKey.Metadata,
    v: 12,
    body: () => ({
      ...m.defaultMetadataRequest(),
      allowAutoTopicCreation: true,
      topics: [
        { name: 't', topicId: ZERO_UUID },
        { name: 'fresh', topicId: ZERO_UUID },
      ],
    }),
    codes: (r) => r.topics.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'CreateTopics',
    key: ApiKey.CreateTopics,
    v: 7,
    body: () => ({
      ...m.defaultCreateTopicsRequest(),
      timeoutMs: 5000,
      topics: [{ name: 'fresh', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    }),
    codes: (r) => r.topics.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteTopics',
    key: ApiKey.DeleteTopics,
    v: 6,
    body: () => ({ ...m.defaultDeleteTopicsRequest(), topics: [{ name: 't', topicId: ZERO_UUID }], timeoutMs: 5000 }),
    codes: (r) => r.responses.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'CreatePartitions',
    key: ApiKey.CreatePartitions,
    v: 3,
    body: () => ({
      ...m.defaultCreatePartitionsRequest(),
      timeoutMs: 5000,
      validateOnly: false,
      topics: [{ name: 't', count: 4, assignments: null }],
    }),
    codes: (r) => r.results.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteRecords',
    key: ApiKey.DeleteRecords,
    v: 2,
    body: () => ({
      ...m.defaultDeleteRecordsRequest(),
      timeoutMs: 5000,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: -1n }] }],
    }),
    codes: (r) => r.topics.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeConfigs (topic, broker)',
    key: ApiKey.DescribeConfigs,
    v: 4,
    body: () => ({
      ...m.defaultDescribeConfigsRequest(),
      resources: [
        { resourceType: 2, resourceName: 't', configurationKeys: null },
        { resourceType: 4, resourceName: '', configurationKeys: null },
      ],
    }),
    codes: (r) => r.results.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'IncrementalAlterConfigs (retention.ms=1 on the topic, a broker config)',
    key: ApiKey.IncrementalAlterConfigs,
    v: 1,
    body: () => ({
      ...m.defaultIncrementalAlterConfigsRequest(),
      validateOnly: false,
      resources: [
        { resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] },
        { resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '1' }] },
      ],
    }),
    codes: (r) => r.responses.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'AlterConfigs',
    key: ApiKey.AlterConfigs,
    v: 2,
    body: () => ({
      ...m.defaultAlterConfigsRequest(),
      validateOnly: false,
      resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', value: '1' }] }],
    }),
    codes: (r) => r.responses.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'InitProducerId (idempotent)',
    key: ApiKey.InitProducerId,
    v: 4,
    body: () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60000 }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'FindCoordinator',
    key: ApiKey.FindCoordinator,
    v: 4,
    body: () => ({ ...m.defaultFindCoordinatorRequest(), keyType: 0, coordinatorKeys: [G] }),
    codes: (r) => r.coordinators.map((c: any) => c.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'JoinGroup',
    key: ApiKey.JoinGroup,
    v: 9,
    body: () => ({
      ...m.defaultJoinGroupRequest(),
      groupId: G,
      sessionTimeoutMs: 6000,
      rebalanceTimeoutMs: 6000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'SyncGroup',
    key: ApiKey.SyncGroup,
    v: 5,
    body: () => ({ ...m.defaultSyncGroupRequest(), groupId: G, generationId: 1, memberId: 'who', assignments: [] }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'Heartbeat',
    key: ApiKey.Heartbeat,
    v: 4,
    body: () => ({ ...m.defaultHeartbeatRequest(), groupId: G, generationId: 1, memberId: 'who' }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'LeaveGroup',
    key: ApiKey.LeaveGroup,
    v: 5,
    body: () => ({
      ...m.defaultLeaveGroupRequest(),
      groupId: G,
      memberId: 'who',
      members: [{ memberId: 'who', groupInstanceId: null }],
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'OffsetCommit',
    key: ApiKey.OffsetCommit,
    v: 8,
    body: () => ({
      ...m.defaultOffsetCommitRequest(),
      groupId: G,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }] }],
    }),
    codes: (r) => r.topics.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'OffsetFetch',
    key: ApiKey.OffsetFetch,
    v: 8,
    body: () => ({ ...m.defaultOffsetFetchRequest(), groups: [{ groupId: G, topics: null }] }),
    codes: (r) => r.groups.map((g: any) => g.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'OffsetDelete',
    key: ApiKey.OffsetDelete,
    v: 0,
    body: () => ({
      ...m.defaultOffsetDeleteRequest(),
      groupId: G,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }],
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeGroups',
    key: ApiKey.DescribeGroups,
    v: 5,
    body: () => ({ ...m.defaultDescribeGroupsRequest(), groups: [G] }),
    codes: (r) => r.groups.map((g: any) => g.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteGroups',
    key: ApiKey.DeleteGroups,
    v: 2,
    body: () => ({ ...m.defaultDeleteGroupsRequest(), groupsNames: [G] }),
    codes: (r) => r.results.map((g: any) => g.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeAcls',
    key: ApiKey.DescribeAcls,
    v: 3,
    body: () => ({
      resourceTypeFilter: 1,
      resourceNameFilter: null,
      patternTypeFilter: 1,
      principalFilter: null,
      hostFilter: null,
      operation: 1,
      permissionType: 1,
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'CreateAcls (granting itself ALL)',
    key: ApiKey.CreateAcls,
    v: 3,
    body: () => ({
      creations: [
        {
          resourceType: 2,
          resourceName: '*',
          resourcePatternType: 3,
          principal: 'User:mallory',
          host: '*',
          operation: 2,
          permissionType: 3,
        },
      ],
    }),
    codes: (r) => r.results.map((c: any) => c.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteAcls',
    key: ApiKey.DeleteAcls,
    v: 3,
    body: () => ({
      filters: [
        {
          resourceTypeFilter: 1,
          resourceNameFilter: null,
          patternTypeFilter: 1,
          principalFilter: null,
          hostFilter: null,
          operation: 1,
          permissionType: 1,
        },
      ],
    }),
    codes: (r) => r.filterResults.map((f: any) => f.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeLogDirs',
    key: ApiKey.DescribeLogDirs,
    v: 4,
    body: () => ({ topics: null }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'ElectLeaders',
    key: ApiKey.ElectLeaders,
    v: 2,
    body: () => ({ electionType: 0, topicPartitions: [{ topic: 't', partitions: [0] }], timeoutMs: 5000 }),
    codes: (r) => [
      r.errorCode,
      ...r.replicaElectionResults.flatMap((t: any) => t.partitionResult.map((p: any) => p.errorCode)),
    ],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'ListPartitionReassignments',
    key: ApiKey.ListPartitionReassignments,
    v: 0,
    body: () => ({ timeoutMs: 5000, topics: null }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeClientQuotas',
    key: ApiKey.DescribeClientQuotas,
    v: 1,
    body: () => ({ components: [], strict: false }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'AlterClientQuotas (lifting its own limit)',
    key: ApiKey.AlterClientQuotas,
    v: 1,
    body: () => ({
      validateOnly: false,
      entries: [
        {
          entity: [{ entityType: 'user', entityName: 'mallory' }],
          ops: [{ key: 'producer_byte_rate', value: 1e9, remove: false }],
        },
      ],
    }),
    codes: (r) => r.entries.map((e: any) => e.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeUserScramCredentials',
    key: ApiKey.DescribeUserScramCredentials,
    v: 0,
    body: () => ({ users: [{ name: 'admin' }] }),
    codes: (r) => [r.errorCode, ...r.results.map((u: any) => u.errorCode)],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'AlterUserScramCredentials (making itself a user)',
    key: ApiKey.AlterUserScramCredentials,
    v: 0,
    body: () => ({
      deletions: [],
      upsertions: [
        {
          name: 'mallory',
          mechanism: 2,
          iterations: 4096,
          salt: Buffer.alloc(16, 1),
          saltedPassword: Buffer.alloc(64, 2),
        },
      ],
    }),
    codes: (r) => r.results.map((u: any) => u.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
];

describe('a principal without ACLs (ALLOW_EVERYONE_IF_NO_ACL_FOUND=false)', () => {
  let broker: RunningBroker;
  let mallory: KafkaConnection;
  let admin: KafkaConnection;
  beforeAll(async () => {
    broker = await start();
    await broker.context.storage.createTopic('t', 2, {});
    await broker.context.storage.commitOffsets(
      G,
      [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }],
      Date.now(),
    );
    mallory = await KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'mallory' });
    admin = await KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'admin' });
  });
  afterAll(async () => {
    mallory?.close();
    admin?.close();
    await broker?.stop();
  });

  it.each(REFUSALS.map((r) => [r.api, r] as const))('is refused %s', async (_api, r) => {
    const res = await mallory.send(r.key, r.v, r.body());
    expect(r.codes(res)).toEqual(r.want);
  });

  it('changed nothing: the topic, its records, configs, partitions, the group offsets and the ACLs are as they were', async () => {
    const storage = engineOf(broker);
    expect(storage.topic('t')).toMatchObject({ partitionCount: 2, configs: {} });
    expect(storage.topic('fresh')).toBeUndefined();
    expect(storage.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 0 });
    expect(storage.fetchOffsets(G)).toHaveLength(1);
    expect(storage.brokerConfigs('')).toEqual({});
    expect(storage.listAcls()).toEqual([]);
    expect(storage.clientQuotas()).toEqual([]);
    expect(storage.scramCredentials()).toEqual([]);
  });

  it('sees no topic and no group in the listings', async () => {
    const md = await mallory.send(ApiKey.Metadata, 12, { ...m.defaultMetadataRequest(), topics: null });
    expect(md.topics).toEqual([]);
    const groups = await mallory.send(ApiKey.ListGroups, 4, m.defaultListGroupsRequest());
    expect(groups.groups).toEqual([]);
  });

  it('a super user (SUPER_USERS) is served the same requests', async () => {
    const md = await admin.send(ApiKey.Metadata, 12, { ...m.defaultMetadataRequest(), topics: null });
    expect(md.topics.map((t: { name: string }) => t.name)).toEqual(['t']);
    for (const r of REFUSALS.filter((x) =>
      ['Fetch', 'ListOffsets', 'DescribeAcls', 'FindCoordinator'].includes(x.api),
    )) {
      const res = await admin.send(r.key, r.v, r.body());
      expect(r.codes(res)).toEqual(r.want.map(() => ErrorCode.NONE));
    }
  });
});

describe('ACLs created through kafkajs admin.createAcls', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await start();
  });
  afterAll(async () => {
    await broker?.stop();
  });
  const client = (clientId: string) =>
    new Kafka({ clientId, brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const acl = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes) => ({
    resourceType,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal: 'User:ANONYMOUS',
    host: '*',
    operation,
    permissionType: AclPermissionTypes.ALLOW,
  });

  it('ANONYMOUS is refused until an ACL for User:ANONYMOUS lets it produce and consume', async () => {
    const admin = client('admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'open', numPartitions: 1 }] });
    const anonymous = client('anonymous-app');
    const producer = anonymous.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await expect(producer.send({ topic: 'open', messages: [{ value: 'no' }] })).rejects.toMatchObject({
      name: expect.stringMatching(/KafkaJS/),
    });
    await producer.disconnect();

    await admin.createAcls({
      acl: [
        acl(AclResourceTypes.TOPIC, 'open', AclOperationTypes.WRITE),
        acl(AclResourceTypes.TOPIC, 'open', AclOperationTypes.READ),
        acl(AclResourceTypes.GROUP, 'readers', AclOperationTypes.READ),
      ],
    });
    const described = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.MATCH,
      resourceName: 'open',
      principal: 'User:ANONYMOUS',
      host: '*',
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    expect(described.resources).toHaveLength(1);
    expect(described.resources[0]!.acls.map((a) => a.operation).sort()).toEqual(
      [AclOperationTypes.READ, AclOperationTypes.WRITE].sort(),
    );

    const allowed = client('anonymous-app').producer({ allowAutoTopicCreation: false });
    await allowed.connect();
    await allowed.send({ topic: 'open', messages: [{ value: 'yes' }] });
    await allowed.disconnect();
    const consumer = client('anonymous-app').consumer({ groupId: 'readers' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'open', fromBeginning: true });
    const got: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message within 20 s')), 20_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          got.push(message.value!.toString());
          clearTimeout(timer);
          resolve();
        },
      });
    });
    await consumer.disconnect();
    expect(got).toEqual(['yes']);
    // The ACLs name topic "open" only: another topic stays closed, even to Metadata.
    await admin.createTopics({ topics: [{ topic: 'closed', numPartitions: 1 }] });
    const other = client('anonymous-app').admin();
    await other.connect();
    expect(await other.listTopics()).toEqual(['open']);
    await other.disconnect();
    await admin.disconnect();
  }, 40_000);
});

describeWithTools('kcat')('kcat against ACLs', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await start();
    await broker.context.storage.createTopic('k', 1, {});
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it("ANONYMOUS is refused with Kafka's error, then served once an ACL allows it", async () => {
    const denied = await kcat(broker, ['-P', '-t', 'k', '-X', 'message.timeout.ms=5000'], { input: 'one\n' });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/authoriz/i);
    const admin = new Kafka({
      clientId: 'admin',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    await admin.createAcls({
      acl: [AclOperationTypes.WRITE, AclOperationTypes.READ].map((operation) => ({
        resourceType: AclResourceTypes.TOPIC,
        resourceName: 'k',
        resourcePatternType: ResourcePatternTypes.PREFIXED,
        principal: 'User:*',
        host: '127.0.0.1',
        operation,
        permissionType: AclPermissionTypes.ALLOW,
      })),
    });
    await admin.disconnect();
    const produced = await kcat(broker, ['-P', '-t', 'k', '-X', 'message.timeout.ms=5000'], { input: 'two\n' });
    expect(produced.code).toBe(0);
    const consumed = await kcat(broker, ['-C', '-t', 'k', '-o', 'beginning', '-e', '-q']);
    expect(consumed.stdout.trim()).toBe('two');
  }, 40_000);
});
