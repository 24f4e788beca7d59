// Client quotas end to end (KIP-13 byte rates, KIP-124 request time, KIP-219 throttling, KIP-546
// admin APIs, KIP-612 connection rate) with real clients: kafka-python's own codec alters and
// describes quotas, kafkajs is throttled by a produce quota, kcat (librdkafka) by a fetch quota.
// Timing is asserted one way only (a throttled client cannot be faster than its quota allows,
// with a wide margin), which a slow, loaded machine cannot break.
import * as net from 'node:net';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaClient } from '../../src/client/client';
import { KafkaConnection } from '../../src/client/connection';
import { UsageError } from '../../src/args';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { alterClientQuotas, describeClientQuotas } from '../../src/client/client-quotas';
import { runQuotaCommand } from '../../src/cli/quota';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { MetadataResponse, ProduceResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { DEBIAN_PYTHON, itWithTools } from '../support/external-tools';
import { kcat, run, startTestBroker, tempDir } from './helpers';

// Two one-second samples: a fresh client may send one second's worth before it is throttled, so
// the tests see throttling after little data (Kafka's 11 samples would allow ten seconds' worth).
const WINDOW = { quotaWindowNum: 2, quotaWindowSizeSeconds: 1 };

describe('client quotas', () => {
  let broker: RunningBroker;
  let client: KafkaClient;
  const tmp = tempDir();
  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'quotas.db')}`, { config: WINDOW });
    client = new KafkaClient(`127.0.0.1:${broker.port}`);
  });
  afterAll(async () => {
    client.close();
    await broker.stop();
    tmp.cleanup();
  });
  afterEach(async () => {
    // Each test starts without quotas.
    const all = await describeClientQuotas(client, []);
    if (all.length > 0)
      await alterClientQuotas(
        client,
        all.map((q) => ({ entity: q.entity, remove: Object.keys(q.values) })),
      );
  });

  it('minnow quota set / list / delete round-trips through AlterClientQuotas and DescribeClientQuotas', async () => {
    const lines: string[] = [];
    const io = { bootstrap: `127.0.0.1:${broker.port}`, out: (l: string) => lines.push(l) };
    expect(
      await runQuotaCommand(['set', '--for-user', 'alice', '--client-id-default', 'producer_byte_rate=1048576'], io),
    ).toBe(0);
    expect(await runQuotaCommand(['set', '--ip-default', 'connection_creation_rate=50'], io)).toBe(0);
    expect(await runQuotaCommand(['set', '--client-id', 'dry', 'producer_byte_rate=5', '--validate-only'], io)).toBe(0);
    lines.length = 0;
    expect(await runQuotaCommand(['list'], io)).toBe(0);
    const listed = JSON.parse(lines.join('\n')) as { entity: Record<string, string | null> }[];
    expect(listed).toEqual(
      expect.arrayContaining([
        { entity: { user: 'alice', 'client-id': null }, values: { producer_byte_rate: 1048576 } },
        { entity: { ip: null }, values: { connection_creation_rate: 50 } },
      ]),
    );
    expect(listed).toHaveLength(2); // validate-only stored nothing
    lines.length = 0;
    expect(await runQuotaCommand(['list', '--for-user', 'alice', '--client-id-default'], io)).toBe(0);
    expect(JSON.parse(lines.join('\n'))).toHaveLength(1);
    expect(await runQuotaCommand(['delete', '--ip-default'], io)).toBe(0);
    expect(await describeClientQuotas(client, [])).toEqual([
      { entity: { user: 'alice', 'client-id': null }, values: { producer_byte_rate: 1048576 } },
    ]);
    // A bad key is Kafka's INVALID_REQUEST, shown with its message; nothing stored.
    await expect(
      alterClientQuotas(client, [{ entity: { 'client-id': 'x' }, set: { producer_byte_rat: 1 } }]),
    ).rejects.toThrow(/INVALID_REQUEST: Invalid configuration key producer_byte_rat/);
    expect(await describeClientQuotas(client, [{ entityType: 'client-id', matchType: 0, match: 'x' }])).toEqual([]);
  });

  itWithTools('python3-kafka')(
    'kafka-python (its own codec) alters and describes quotas, defaults and errors included',
    async () => {
      const r = await run(
        DEBIAN_PYTHON,
        [path.join(__dirname, 'python', 'kafka_python_quotas.py'), `127.0.0.1:${broker.port}`],
        { timeoutMs: 60_000 },
      );
      if (r.code !== 0) throw new Error(`kafka-python failed (${r.code}): ${r.stderr}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.alter.map((e: unknown[]) => e[0])).toEqual([0, 0, 0, ErrorCode.INVALID_REQUEST]);
      expect(out.alter[3][1]).toBe('Quota producer_byte_rate must be greater than 0');
      expect(out.all.entries).toEqual([
        [
          [
            ['client-id', 'py-app'],
            ['user', 'alice'],
          ],
          { producer_byte_rate: 1024 },
        ],
        [[['client-id', null]], { consumer_byte_rate: 2048, request_percentage: 12.5 }],
        [[['ip', null]], { connection_creation_rate: 30 }],
      ]);
      expect(out.default_client.entries).toEqual([
        [[['client-id', null]], { consumer_byte_rate: 2048, request_percentage: 12.5 }],
      ]);
      expect(out.user_alice.entries).toHaveLength(1);
      expect(out.bad_filter).toEqual({
        error: ErrorCode.UNSUPPORTED_VERSION,
        message: 'Unsupported entity type group',
        entries: null,
      });
      expect(out.after_remove.entries).toEqual([[[['client-id', null]], { consumer_byte_rate: 2048 }]]);
    },
  );

  it('throttles a kafkajs producer over its client id’s producer_byte_rate, and not another client', async () => {
    const QUOTA = 40_000; // bytes/s
    await alterClientQuotas(client, [{ entity: { 'client-id': 'slow-producer' }, set: { producer_byte_rate: QUOTA } }]);
    const throttles: number[] = [];
    const kafkaFor = (clientId: string, seen: number[]) =>
      new Kafka({
        clientId,
        brokers: [`127.0.0.1:${broker.port}`],
        logLevel: logLevel.DEBUG,
        logCreator: () => (entry) => {
          const data = (entry.log as { data?: { clientSideThrottleTime?: number; throttleTime?: number } }).data;
          if (entry.log.message.startsWith('Response Produce') && data)
            seen.push(Math.max(data.clientSideThrottleTime ?? 0, data.throttleTime ?? 0));
        },
      });
    const send = async (kafka: Kafka, bytes: number) => {
      const producer = kafka.producer({ allowAutoTopicCreation: true });
      await producer.connect();
      const started = performance.now();
      try {
        const value = Buffer.alloc(8_000, 'q');
        for (let sent = 0; sent < bytes; sent += value.length)
          await producer.send({ topic: 'quota-produce', acks: 1, messages: [{ value }] });
      } finally {
        await producer.disconnect();
      }
      return (performance.now() - started) / 1000;
    };
    const TOTAL = 200_000;
    const seconds = await send(kafkaFor('slow-producer', throttles), TOTAL);
    expect(throttles.length).toBeGreaterThan(0);
    expect(Math.max(...throttles)).toBeGreaterThan(0); // throttle_time_ms on the wire, read by kafkajs
    // One window's worth (QUOTA bytes) passes at once; the rest at most at QUOTA bytes/s. Allow
    // half of that time: a client ignoring the throttle would take well under it on any machine.
    expect(seconds).toBeGreaterThan((0.5 * (TOTAL - QUOTA)) / QUOTA);

    const free: number[] = [];
    await send(kafkaFor('free-producer', free), 100_000);
    expect(free.length).toBeGreaterThan(0);
    expect(Math.max(...free)).toBe(0);
  }, 60_000);

  itWithTools('kcat')(
    'throttles kcat (librdkafka) under consumer_byte_rate and still delivers everything',
    async () => {
      const QUOTA = 50_000;
      const value = 'f'.repeat(999);
      // Batches of 10 kB: a batch bigger than one window's quota is still sent whole (KIP-74), and
      // a fetch over the quota answers empty, so it could never get through (as in Kafka).
      const p = await kcat(broker, ['-P', '-t', 'quota-fetch', '-X', 'batch.num.messages=10'], {
        input: `${value}\n`.repeat(250), // 250 kB
      });
      expect(p.code).toBe(0);
      await alterClientQuotas(client, [
        { entity: { 'client-id': 'slow-consumer' }, set: { consumer_byte_rate: QUOTA } },
      ]);
      const started = performance.now();
      const c = await kcat(
        broker,
        ['-C', '-t', 'quota-fetch', '-o', 'beginning', '-e', '-v', '-X', 'client.id=slow-consumer'],
        { timeoutMs: 60_000 },
      );
      const seconds = (performance.now() - started) / 1000;
      expect(c.code).toBe(0);
      expect(c.stdout.split('\n').filter((l) => l === value)).toHaveLength(250);
      // kcat's throttle callback reports librdkafka's THROTTLE events, i.e. throttle_time_ms > 0.
      const throttled = [...c.stderr.matchAll(/throttled request for (\d+)ms/g)].map((m) => Number(m[1]));
      expect(Math.max(0, ...throttled)).toBeGreaterThan(0);
      expect(seconds).toBeGreaterThan((0.5 * (250_000 - QUOTA)) / QUOTA);
    },
    90_000,
  );

  it('answers a throttled request at once, then reads nothing more from the connection for the throttle time (KIP-219)', async () => {
    const QUOTA = 10_000;
    await alterClientQuotas(client, [{ entity: { 'client-id': 'muted' }, set: { producer_byte_rate: QUOTA } }]);
    await broker.context.storage.createTopic('quota-mute', 1, {});
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'muted' });
    try {
      const records = [{ key: null, value: Buffer.alloc(3 * QUOTA, 'm'), timestamp: BigInt(Date.now()) }];
      const produce = conn.send<ProduceResponse>(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 10_000,
        topicData: [{ name: 'quota-mute', partitionData: [{ index: 0, records: encodeRecordBatch({ records }) }] }],
      });
      // Sent right behind the produce: the broker must not read it until the throttle is over.
      const metadata = conn.send<MetadataResponse>(ApiKey.Metadata, 9, {
        topics: [],
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      });
      const produced = await produce;
      const answeredAt = performance.now();
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE); // stored, not refused
      // 30 kB (+ the request's own ~150 bytes) against 10 kB/s over one 1 s window:
      // (30000 - 10000) / 10000 * 1 s, and a little more.
      expect(produced.throttleTimeMs).toBeGreaterThanOrEqual(2000);
      expect(produced.throttleTimeMs).toBeLessThan(2100);
      await metadata;
      // Muted for the throttle time; half of it is a bound no machine's slowness can break.
      expect(performance.now() - answeredAt).toBeGreaterThan(1000);
    } finally {
      conn.close();
    }
  });

  it('minnow quota refuses a command without an entity or with a bad KEY=VALUE', async () => {
    const io = { bootstrap: `127.0.0.1:${broker.port}`, out: () => {} };
    await expect(runQuotaCommand(['set', 'producer_byte_rate=1'], io)).rejects.toThrow(UsageError);
    await expect(runQuotaCommand(['set', '--for-user', 'a', 'producer_byte_rate=fast'], io)).rejects.toThrow(
      /expected KEY=NUMBER/,
    );
    await expect(
      runQuotaCommand(['set', '--for-user', 'a', '--for-user-default', 'producer_byte_rate=1'], io),
    ).rejects.toThrow(/not both/);
  });

  it('throttles by request time (request_percentage), at most one window, in throttle_time_ms', async () => {
    // 0.01 % of a second is 0.1 ms: a few Metadata requests exceed it.
    await alterClientQuotas(client, [{ entity: { user: 'ANONYMOUS' }, set: { request_percentage: 0.01 } }]);
    const conn = await client.connect();
    let throttle = 0;
    for (let i = 0; i < 200 && throttle === 0; i++) {
      const res: MetadataResponse = await conn.send(ApiKey.Metadata, 9, {
        topics: null,
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      });
      throttle = res.throttleTimeMs ?? 0;
    }
    expect(throttle).toBeGreaterThan(0);
    expect(throttle).toBeLessThanOrEqual(1000);
  });

  it('holds and closes connections over the IP’s connection_creation_rate (KIP-612), serves the rest', async () => {
    await alterClientQuotas(client, [{ entity: { ip: '127.0.0.1' }, set: { connection_creation_rate: 2 } }]);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => apiVersionsOnNewConnection(broker.port)));
    expect(outcomes.filter((o) => o === 'answered').length).toBeGreaterThanOrEqual(1);
    expect(outcomes.filter((o) => o === 'answered').length).toBeLessThanOrEqual(2);
    expect(outcomes.filter((o) => o === 'closed')).toHaveLength(5 - outcomes.filter((o) => o === 'answered').length);
  });
});

/** Opens a connection, sends ApiVersions v0, and says whether it was answered or closed unanswered. */
function apiVersionsOnNewConnection(port: number): Promise<'answered' | 'closed' | 'timeout'> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      s.destroy();
      resolve('timeout');
    }, 10_000);
    const done = (o: 'answered' | 'closed') => {
      clearTimeout(timer);
      s.destroy();
      resolve(o);
    };
    s.on('connect', () => s.write(encodeRequestFrame(ApiKey.ApiVersions, 0, 1, 'rate-test', {})));
    s.on('data', () => done('answered'));
    s.on('close', () => done('closed'));
    s.on('error', () => {});
  });
}
