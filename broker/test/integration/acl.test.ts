// Authorization end to end (issue 13): a principal without ACLs is refused every API it may not
// use, with Kafka's error in Kafka's place, and nothing changes; a super user is not; ACLs created
// through kafkajs' admin.createAcls open exactly what they name, for kafkajs and kcat alike.
// Until SASL sets principals, the broker's test-only hook gives a connection its principal from
// its client id (StartOptions.testOnlyPrincipalForClientId).
// The refused requests are acl-refusals/*.ts, one table per resource.
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
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { engineOf, kcat, startTestBroker } from './helpers';
import { CLUSTER_REFUSALS } from './acl-refusals/cluster-refusals';
import { GROUP_REFUSALS } from './acl-refusals/group-refusals';
import { G } from './acl-refusals/refusal';
import { TOPIC_REFUSALS } from './acl-refusals/topic-refusals';

const PRINCIPALS: Record<string, string> = { admin: 'admin', mallory: 'mallory' };

async function start(): Promise<RunningBroker> {
  return startTestBroker('memory://', {
    config: { allowEveryoneIfNoAclFound: false, superUsers: ['User:admin'], groupInitialRebalanceDelayMs: 0 },
    testOnlyPrincipalForClientId: (clientId) =>
      clientId && PRINCIPALS[clientId] ? { principalType: 'User', name: PRINCIPALS[clientId]! } : undefined,
  });
}

/** One request per API an ACL-less principal may not use, and where its error lands. */
const REFUSALS = [...TOPIC_REFUSALS, ...GROUP_REFUSALS, ...CLUSTER_REFUSALS];

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
    // __consumer_offsets too once a group was looked up (offsets-topic.ts), as on Kafka.
    expect(md.topics.map((t: { name: string }) => t.name).filter((n: string) => n !== '__consumer_offsets')).toEqual([
      't',
    ]);
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
