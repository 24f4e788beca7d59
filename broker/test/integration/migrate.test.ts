// Moving up (issue 18): a single-node sqlite:// broker's state, built with real clients, moved with
// `minnow migrate` (the CLI) into PostgreSQL; a broker on the postgres:// database then serves it:
// the consumer group resumes from its committed offset, the SCRAM user logs in, the ACLs hold, new records continue the log.
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { SASLOptions } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { saltedPassword } from '../../src/sasl/scram-crypto';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { run, setOffsets, startTestBroker, tempDir } from './helpers';
import { MINNOW } from './serve-child';

const TOPIC = 'orders';
const COUNT = 20;
const COMMITTED = 12;

const kafka = (port: number, sasl?: SASLOptions) =>
  new Kafka({
    clientId: 'migrate-test',
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    retry: { retries: 3 },
    ...(sasl && { sasl }),
  });

/** Broker listeners: SASL_PLAINTEXT first, then PLAINTEXT. */
async function broker(storageUrl: string): Promise<RunningBroker> {
  return startTestBroker(storageUrl, {
    config: {
      listeners: [
        { host: '127.0.0.1', port: 0, securityProtocol: 'SASL_PLAINTEXT' },
        { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
      ],
      allowEveryoneIfNoAclFound: true,
      // Groups form at once (the consumer is its group's only member: it waited the 3 s initial delay).
      groupInitialRebalanceDelayMs: 0,
      connectionFailedAuthenticationDelayMs: 0,
    },
  });
}

describeWithTools('postgresql')('minnow migrate: sqlite:// to postgres://, then served', () => {
  const tmp = tempDir('minnow-migrate-it-');
  let server: PostgresServer;
  beforeAll(async () => {
    server = await postgresServer();
  });
  afterAll(async () => {
    await server?.stop();
    tmp.cleanup();
  });

  it("keeps the records (an idempotent producer's), the committed offset, the SCRAM user and the ACLs", async () => {
    const sqliteUrl = `sqlite://${path.join(tmp.dir, 'minnow.db')}`;
    const one = await broker(sqliteUrl);
    try {
      const plain = kafka(one.listeners[1]!.port);
      const admin = plain.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }] });
      const producer = plain.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      for (let i = 0; i < COUNT; i += 5) {
        await producer.send({ topic: TOPIC, messages: Array.from({ length: 5 }, (_, j) => ({ value: `v${i + j}` })) });
      }
      await producer.disconnect();
      await setOffsets(plain, 'g', TOPIC, [{ partition: 0, offset: String(COMMITTED) }]);
      // The user, through AlterUserScramCredentials; then alice alone may read the topic.
      const conn = await KafkaConnection.connect('127.0.0.1', one.listeners[1]!.port);
      try {
        const salt = Buffer.from('migrate-salt');
        const res = (await conn.send(ApiKey.AlterUserScramCredentials, 0, {
          deletions: [],
          upsertions: [
            {
              name: 'alice',
              mechanism: 1,
              iterations: 4096,
              salt,
              saltedPassword: await saltedPassword('SCRAM-SHA-256', 'alice-secret', salt, 4096),
            },
          ],
        })) as { results: { errorCode: number }[] };
        expect(res.results.map((r) => r.errorCode)).toEqual([0]);
      } finally {
        conn.close();
      }
      await admin.createAcls({
        acl: [
          {
            resourceType: 2, // TOPIC
            resourceName: TOPIC,
            resourcePatternType: 3, // LITERAL
            principal: 'User:alice',
            host: '*',
            operation: 3, // READ
            permissionType: 3, // ALLOW
          },
          {
            resourceType: 2,
            resourceName: TOPIC,
            resourcePatternType: 3,
            principal: 'User:alice',
            host: '*',
            operation: 4, // WRITE
            permissionType: 3,
          },
        ],
      });
      await admin.disconnect();
    } finally {
      await one.stop();
    }

    const target = await server.createDatabase('migrate_it');
    const migrated = await run(process.execPath, [MINNOW, 'migrate', sqliteUrl, target], { timeoutMs: 120_000 });
    expect({ code: migrated.code, stderr: migrated.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/verified/),
    });
    expect(migrated.stdout).toMatch(
      new RegExp(`partition ${TOPIC}-0 +4 batches 0\\.\\.19 log 0\\.\\.20 +4 batches 0\\.\\.19 log 0\\.\\.20 +ok`),
    );
    // Run again: the target is no longer empty.
    const again = await run(process.execPath, [MINNOW, 'migrate', sqliteUrl, target], { timeoutMs: 120_000 });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not empty/);

    const two = await broker(target);
    try {
      const alice = kafka(two.listeners[0]!.port, {
        mechanism: 'scram-sha-256',
        username: 'alice',
        password: 'alice-secret',
      });
      const consumer = alice.consumer({ groupId: 'g' });
      await consumer.connect();
      await consumer.subscribe({ topic: TOPIC }); // no fromBeginning: the committed offset decides
      const values: string[] = [];
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`consumed ${values.length} records: ${values.join(',')}`)),
            30_000,
          );
          void consumer.run({
            eachMessage: async ({ message }) => {
              values.push(String(message.value));
              if (values.length < COUNT - COMMITTED) return;
              clearTimeout(timer);
              resolve();
            },
          });
        });
      } finally {
        await consumer.disconnect();
      }
      expect(values).toEqual(Array.from({ length: COUNT - COMMITTED }, (_, i) => `v${COMMITTED + i}`));
      // The ACL came along: anyone else is refused the topic.
      const anonymous = kafka(two.listeners[1]!.port).admin();
      await anonymous.connect();
      try {
        await expect(anonymous.fetchTopicOffsets(TOPIC)).rejects.toThrow(/authoriz/i);
      } finally {
        await anonymous.disconnect();
      }
      // New records continue the log where the source left it.
      const producer = alice.producer();
      await producer.connect();
      try {
        const [r] = await producer.send({ topic: TOPIC, messages: [{ value: 'after' }] });
        expect(r!.baseOffset).toBe(String(COUNT));
      } finally {
        await producer.disconnect();
      }
    } finally {
      await two.stop();
    }
  });
});
