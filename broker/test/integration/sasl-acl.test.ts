// Authentication and authorization together, as a secured broker runs (the AWS kit's settings):
// a sasl+tcp:// listener makes the broker closed by default (ALLOW_EVERYONE_IF_NO_ACL_FOUND),
// SUPER_USERS may do everything, a logged-in user without ACLs is refused, and an ACL created
// through the Kafka API lets that user in. Real clients: kafkajs and kcat.
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  ResourcePatternTypes,
} from 'kafkajs';
import { describeWithTools } from '../support/external-tools';
import { consumeValues, run } from './helpers';
import { addUser, SaslBroker, startSaslBroker } from './sasl-support';

describe('SASL users and ACLs together (closed by default)', () => {
  let b: SaslBroker;
  beforeAll(async () => {
    // Groups form at once: alice's group has one member (it waited the 3 s
    // group.initial.rebalance.delay.ms for no one).
    b = await startSaslBroker(
      { superUsers: ['User:admin'], allowEveryoneIfNoAclFound: undefined, groupInitialRebalanceDelayMs: 0 },
      { realClock: true },
    );
    await addUser(b.broker.context.storage, 'admin', 'admin-pw');
    await addUser(b.broker.context.storage, 'alice', 'alice-pw');
  });
  afterAll(() => b?.broker.stop());

  const kafka = (username: string, password: string) =>
    new Kafka({
      clientId: `${username}-app`,
      brokers: [`127.0.0.1:${b.saslPort}`],
      sasl: { mechanism: 'scram-sha-512', username, password },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });

  it('admin (a super user) creates and writes; alice, logged in without ACLs, is refused; an ACL lets her read', async () => {
    const admin = kafka('admin', 'admin-pw');
    const adminClient = admin.admin();
    await adminClient.connect();
    await adminClient.createTopics({ topics: [{ topic: 'orders', numPartitions: 1 }] });
    const producer = admin.producer();
    await producer.connect();
    await producer.send({ topic: 'orders', messages: [{ value: 'o-1' }] });
    await producer.disconnect();

    const alice = kafka('alice', 'alice-pw');
    const aliceAdmin = alice.admin();
    await aliceAdmin.connect();
    // Metadata hides what alice may not describe; a direct fetch of offsets is refused.
    expect(await aliceAdmin.listTopics()).toEqual([]);
    await expect(aliceAdmin.fetchTopicOffsets('orders')).rejects.toBeDefined();

    const allow = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes) => ({
      resourceType,
      resourceName,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      principal: 'User:alice',
      host: '*',
      operation,
      permissionType: AclPermissionTypes.ALLOW,
    });
    await adminClient.createAcls({
      acl: [
        allow(AclResourceTypes.TOPIC, 'orders', AclOperationTypes.READ),
        allow(AclResourceTypes.GROUP, 'alice-group', AclOperationTypes.READ),
      ],
    });
    expect(await aliceAdmin.listTopics()).toEqual(['orders']);
    // alice may not create ACLs herself (ALTER on the cluster).
    await expect(
      aliceAdmin.createAcls({ acl: [allow(AclResourceTypes.TOPIC, '*', AclOperationTypes.ALL)] }),
    ).rejects.toBeDefined();
    await aliceAdmin.disconnect();
    await adminClient.disconnect();

    const consumer = alice.consumer({ groupId: 'alice-group' });
    await consumer.connect();
    const seen = await consumeValues(consumer, 'orders', 1);
    expect(seen).toEqual(['o-1']);
  }, 60_000);

  it('ANONYMOUS on the plaintext listener sees nothing and may change nothing', async () => {
    const anon = new Kafka({
      brokers: [`127.0.0.1:${b.plainPort}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });
    const a = anon.admin();
    await a.connect();
    try {
      expect(await a.listTopics()).toEqual([]);
      await expect(a.deleteTopics({ topics: ['orders'], timeout: 2000 })).rejects.toBeDefined();
    } finally {
      await a.disconnect();
    }
    expect(await b.broker.context.storage.topic('orders')).toBeDefined();
  }, 30_000);
});

describeWithTools('kcat')('kcat as a logged-in user without ACLs', () => {
  let b: SaslBroker;
  beforeAll(async () => {
    b = await startSaslBroker(
      { superUsers: ['User:admin'], allowEveryoneIfNoAclFound: undefined },
      { realClock: true },
    );
    await addUser(b.broker.context.storage, 'bob', 'bob-pw');
    await b.broker.context.storage.createTopic('private', 1, {});
  });
  afterAll(() => b?.broker.stop());

  it('is refused a produce with TOPIC_AUTHORIZATION_FAILED', async () => {
    const r = await run(
      'kcat',
      [
        '-b',
        `127.0.0.1:${b.saslPort}`,
        '-X',
        'security.protocol=SASL_PLAINTEXT',
        '-X',
        'sasl.mechanisms=SCRAM-SHA-256',
        '-X',
        'sasl.username=bob',
        '-X',
        'sasl.password=bob-pw',
        '-P',
        '-t',
        'private',
      ],
      { input: 'nope\n', timeoutMs: 20_000 },
    );
    expect(`${r.stdout}${r.stderr}`).toMatch(/authorization failed/i);
    expect((await b.broker.context.storage.offsets('private', 0))!.highWatermark).toBe(0);
  }, 30_000);
});
