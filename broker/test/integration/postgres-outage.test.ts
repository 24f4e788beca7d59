// A PostgreSQL outage under one postgres:// broker (RDS Multi-AZ failover: 60-120 s of refused
// connections): every request is answered, with Kafka's retriable codes, and no connection is
// closed (server/error-answers). A closed connection looks like a dead broker: librdkafka, seeing
// all of them closed, reports "all brokers down". The server is a private one: the tests stop it.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools, postgresBinDir } from '../support/external-tools';
import { startPrivatePostgres } from '../support/postgres-server';
import type { PrivateServer } from '../support/postgres-server';
import { kcat, startTestBroker } from './helpers';

jest.setTimeout(120_000);

/** Codes every client retries (kafkajs `retriable`, librdkafka's refresh-and-retry actions). */
const RETRIABLE = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Many of the clients' retries long (librdkafka backs off up to 1 s, kafkajs up to 2 s here): the
// outage is met by every request of a client started during it, without waiting out a real
// failover's 60-120 s.
const OUTAGE_MS = 10_000;

describeWithTools('postgresql', 'kcat')('a PostgreSQL outage under a postgres:// broker', () => {
  let pg: PrivateServer;
  let broker: RunningBroker;

  beforeAll(async () => {
    pg = await startPrivatePostgres(postgresBinDir());
    broker = await startTestBroker(`${pg.baseUrl}/postgres`, { config: { groupInitialRebalanceDelayMs: 0 } });
  }, 120_000);
  afterAll(async () => {
    await broker?.stop();
    pg?.stop();
  });

  /** pg_ctl as the server's user (root runs it as `postgres`, see postgres-server.ts). */
  const pgCtl = async (action: 'stop' | 'start') => {
    const ctl = [path.join(postgresBinDir()!, 'pg_ctl'), '-D', path.join(pg.dir, 'data')];
    const [cmd, ...args] = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...ctl] : ctl;
    const opts = action === 'stop' ? ['-m', 'immediate'] : ['-l', path.join(pg.dir, 'server.log')];
    await promisify(execFile)(cmd!, [...args, ...opts, '-w', '-t', '60', action], { cwd: pg.dir });
  };

  // The three clients below meet ONE outage together (each waited out its own 10 s before): the
  // raw requests and kcat start during it, the kafkajs group was consuming when it began. Each
  // client's phases keep their own failure, reported by its own test.
  const settled = (p: Promise<void>): Promise<unknown> =>
    p.then(
      () => undefined,
      (err: unknown) => err ?? new Error('failed without a reason'),
    );
  let rawFailure: unknown;
  let rawCodes: Record<string, number[]> = {};
  let rawAfter = -1;
  let kcatFailure: unknown;
  let kcatOutcome: { code: number | null; failed: string[]; read: string[] } | undefined;
  const kcatValues = Array.from({ length: 30 }, (_, i) => `v${i}`);
  let groupFailure: unknown;
  let groupOutcome: { crashed: unknown; seen: string[] } | undefined;

  beforeAll(async () => {
    const raw = await rawClient();
    const kcatClient = await kcatProducer();
    const group = await groupMember();
    try {
      groupFailure = await settled(group.before());
      try {
        await pgCtl('stop');
        rawFailure = await settled(raw.during());
        kcatFailure = await settled(kcatClient.during());
        await sleep(OUTAGE_MS);
      } finally {
        await pgCtl('start');
      }
      [rawFailure, kcatFailure, groupFailure] = await Promise.all([
        rawFailure ? rawFailure : settled(raw.after()),
        kcatFailure ? kcatFailure : settled(kcatClient.after()),
        groupFailure ? groupFailure : settled(group.after()),
      ]);
    } finally {
      raw.close();
      await group.close();
      kcatClient.kill();
    }
  }, 120_000);

  it('raw Metadata, Produce, Fetch, ListOffsets, FindCoordinator, JoinGroup: retriable codes, the connection stays open', () => {
    if (rawFailure) throw rawFailure;
    const unretriable = Object.entries(rawCodes).filter(([, cs]) => cs.some((c) => !RETRIABLE.has(c)));
    expect({ unretriable, answered: Object.keys(rawCodes).length }).toEqual({ unretriable: [], answered: 6 });
    // At least the lookups that need the database failed (else this test would prove nothing).
    expect(
      Object.values(rawCodes)
        .flat()
        .filter((c) => c !== ErrorCode.NONE).length,
    ).toBeGreaterThan(0);
    // The same connection carried on once PostgreSQL was back.
    expect(rawAfter).toBe(ErrorCode.NONE);
  });

  it('kcat (librdkafka) started during a 10 s outage produces with retries: every record delivered, exit 0', () => {
    if (kcatFailure) throw kcatFailure;
    expect(kcatOutcome).toEqual({ code: 0, failed: [], read: kcatValues });
  });

  it('a kafkajs consumer in a group carries on through a 10 s outage', () => {
    if (groupFailure) throw groupFailure;
    expect(groupOutcome).toEqual({ crashed: undefined, seen: ['before', 'after'] });
  });

  /** Six requests on one connection during the outage; after it, produce on it until accepted. */
  async function rawClient() {
    await broker.context.storage.createTopic('outage-raw', 1, {});
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port, { requestTimeoutMs: 60_000 });
    const batch = () => encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] });
    const produce = () =>
      conn.send(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'outage-raw', partitionData: [{ index: 0, records: batch() }] }],
      });
    const codes: Record<string, number[]> = (rawCodes = {});
    return {
      close: () => conn.close(),
      async during() {
        const metadata = await conn.send(ApiKey.Metadata, 12, {
          topics: [
            { name: 'outage-raw', topicId: ZERO_UUID },
            { name: 'outage-unknown', topicId: ZERO_UUID },
          ],
          allowAutoTopicCreation: true,
          includeTopicAuthorizedOperations: false,
        });
        codes.metadata = metadata.topics.map((t: { errorCode: number }) => t.errorCode);
        expect(metadata.brokers.length).toBe(1);
        codes.produce = (await produce()).responses[0].partitionResponses.map(
          (p: { errorCode: number }) => p.errorCode,
        );
        const fetch = await conn.send(ApiKey.Fetch, 12, {
          replicaId: -1,
          maxWaitMs: 100,
          minBytes: 1,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            { topic: 'outage-raw', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] },
          ],
          forgottenTopicsData: [],
          rackId: '',
        });
        codes.fetch = [
          fetch.errorCode,
          ...fetch.responses[0].partitions.map((p: { errorCode: number }) => p.errorCode),
        ];
        const offsets = await conn.send(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: 'outage-raw', partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
        });
        codes.listOffsets = offsets.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode);
        const coordinator = await conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['outage-g'] });
        codes.findCoordinator = coordinator.coordinators.map((c: { errorCode: number }) => c.errorCode);
        const join = await conn.send(ApiKey.JoinGroup, 5, {
          groupId: 'outage-g',
          sessionTimeoutMs: 10_000,
          rebalanceTimeoutMs: 10_000,
          memberId: '',
          groupInstanceId: null,
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
        });
        codes.joinGroup = [join.errorCode];
      },
      async after() {
        for (let i = 0; i < 60 && rawAfter !== ErrorCode.NONE; i++) {
          rawAfter = (await produce()).responses[0].partitionResponses[0].errorCode;
          if (rawAfter !== ErrorCode.NONE) await sleep(500);
        }
      },
    };
  }

  /** kcat started during the outage, 20 records then; the last 10 and the read-back after it. */
  async function kcatProducer() {
    await broker.context.storage.createTopic('outage-kcat', 1, {});
    let child: ChildProcessWithoutNullStreams | undefined;
    let stderr = '';
    let exited: Promise<number | null> | undefined;
    return {
      kill: () => child?.kill(),
      async during() {
        // From its bootstrap Metadata on, every request of this producer meets the outage.
        child = spawn('kcat', ['-b', `127.0.0.1:${broker.port}`, '-P', '-t', 'outage-kcat', '-p', '0',
          '-X', 'enable.idempotence=true', '-X', 'message.timeout.ms=90000'], { stdio: ['pipe', 'pipe', 'pipe'] }); // prettier-ignore
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        exited = new Promise((resolve) => child!.on('close', resolve));
        child.stdin.write(kcatValues.slice(0, 20).join('\n') + '\n');
      },
      async after() {
        child!.stdin.end(kcatValues.slice(20).join('\n') + '\n');
        const code = await exited!;
        const read = await kcat(broker, ['-C', '-t', 'outage-kcat', '-o', 'beginning', '-e', '-f', '%s\n']);
        // kcat's own lines ("% ERROR: ...", "% Delivery failed ..."); librdkafka's retry warnings (%4|) are fine.
        const failed = stderr.split('\n').filter((l) => /^% (ERROR|Delivery failed)/.test(l));
        kcatOutcome = { code, failed, read: read.stdout.trimEnd().split('\n') };
      },
    };
  }

  /** A kafkajs group member that read and committed 'before' when the outage began; 'after' is sent after it. */
  async function groupMember() {
    await broker.context.storage.createTopic('outage-kafkajs', 1, {});
    const kafka = new Kafka({
      clientId: 'outage',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2000 },
    });
    const producer = kafka.producer();
    // Its fetches fail through the outage until kafkajs's consumer retries (5) run out and it
    // restarts as a new member: the group then waits for the old member's session to expire (as
    // Kafka does). 6 s, Kafka's group.min.session.timeout.ms, not kafkajs's 30: the wait.
    const consumer = kafka.consumer({ groupId: 'outage-kafkajs', heartbeatInterval: 500, sessionTimeout: 6_000 });
    const seen: string[] = [];
    let crashed: unknown;
    consumer.on(consumer.events.CRASH, (e) => {
      if (!e.payload.restart) crashed = e.payload.error;
    });
    return {
      async close() {
        await consumer.disconnect().catch(() => {});
        await producer.disconnect().catch(() => {});
      },
      async before() {
        await producer.connect();
        await consumer.connect();
        await consumer.subscribe({ topic: 'outage-kafkajs', fromBeginning: true });
        await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
        await producer.send({ topic: 'outage-kafkajs', messages: [{ value: 'before' }] });
        for (let i = 0; i < 100 && seen.length < 1; i++) await sleep(200);
        // kafkajs commits 'before' just after handing it over: stopping the database before that
        // commit lands would have the restarted member read it again (at least once, as Kafka does).
        const admin = kafka.admin();
        await admin.connect();
        const committed = async () =>
          (await admin.fetchOffsets({ groupId: 'outage-kafkajs', topics: ['outage-kafkajs'] }))[0]!.partitions[0]!
            .offset;
        for (let i = 0; i < 100 && (await committed()) !== '1'; i++) await sleep(100);
        await admin.disconnect();
      },
      async after() {
        await producer.send({ topic: 'outage-kafkajs', messages: [{ value: 'after' }] });
        for (let i = 0; i < 300 && !seen.includes('after') && !crashed; i++) await sleep(200);
        groupOutcome = { crashed, seen };
      },
    };
  }
});
