// Real clients over sasl+tcp:// (issue 13, "Proof"): kcat (librdkafka 2.0.2), kafkajs, kafka-python
// 2.0.2 and confluent-kafka (Debian's 1.7.0 and PyPI's current librdkafka) produce and consume with
// PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512; a wrong password, an unknown user and no credentials are
// refused; librdkafka re-authenticates on its connection when CONNECTIONS_MAX_REAUTH_MS runs out
// (KIP-368), and a client that cannot (kafka-python) has its connection closed at expiry.
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '../../src/logger';
import { DEBIAN_PYTHON, describeWithTools } from '../support/external-tools';
import { loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { run } from './helpers';
import { venvPython } from './python-venv';
import { addUser, SaslBroker, startSaslBroker } from './sasl-support';

const MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
const script = path.join(__dirname, 'python', 'sasl_roundtrip.py');
const REQUIREMENTS = path.join(__dirname, 'python', 'requirements-pypi.txt');

interface LogLine {
  msg: string;
  connectionId?: number;
  api?: string;
  why?: string;
}

/** A broker on a real clock with a debug log kept in memory (to see re-authentications and closes). */
async function brokerWithLog(config: Parameters<typeof startSaslBroker>[0] = {}) {
  // The produce-and-consume tests of a block run at once (it.concurrent: their own topics, and
  // their time is spent waiting on clients); support/lazy-broker-modules.ts says why this first.
  loadLazyBrokerModules();
  const lines: LogLine[] = [];
  const logger = createLogger('debug', (l) => lines.push(JSON.parse(l) as LogLine));
  // Groups form at once (these tests are about logging in; a consumer waited the 3 s default).
  const b = await startSaslBroker({ groupInitialRebalanceDelayMs: 0, ...config }, { realClock: true, logger });
  await addUser(b.broker.context.storage, 'alice', 'alice-secret');
  return { b, lines };
}

/** Connections that sent SaslHandshake more than once: re-authenticated on the live connection. */
function reauthenticatedConnections(lines: LogLine[]): number {
  const handshakes = new Map<number, number>();
  for (const l of lines)
    if (l.msg === 'request' && l.api === 'SaslHandshake')
      handshakes.set(l.connectionId!, (handshakes.get(l.connectionId!) ?? 0) + 1);
  return [...handshakes.values()].filter((n) => n > 1).length;
}

function parseResult(what: string, r: { code: number | null; stdout: string; stderr: string }) {
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as { values?: string[]; error?: string };
  } catch {
    throw new Error(`${what} exited ${r.code} without a result: ${r.stderr.slice(-2000)}`);
  }
}

describeWithTools('kcat')('kcat over SASL_PLAINTEXT', () => {
  let b: SaslBroker;
  beforeAll(async () => ({ b } = await brokerWithLog()));
  afterAll(() => b.broker.stop());
  const kcat = (args: string[], input?: string) =>
    run('kcat', ['-b', `127.0.0.1:${b.saslPort}`, ...args], { input, timeoutMs: 20_000 });
  const sasl = (mechanism: string, user: string, password: string) => [
    '-X',
    'security.protocol=SASL_PLAINTEXT',
    '-X',
    `sasl.mechanisms=${mechanism}`,
    '-X',
    `sasl.username=${user}`,
    '-X',
    `sasl.password=${password}`,
  ];

  // Every refused kcat waits out its `-m 3` for the metadata it is refused: the seven run at once,
  // alongside the first tests (each refusal test still checks its own).
  let refusals: Map<string, Promise<Awaited<ReturnType<typeof kcat>>[]>>;
  const refused = (key: string) => refusals.get(key)!;
  beforeAll(() => {
    refusals = new Map([
      ...MECHANISMS.map((m) => {
        const attempts = [
          ['alice', 'wrong'],
          ['nobody', 'alice-secret'],
        ].map(([user, password]) => kcat([...sasl(m, user!, password!), '-L', '-m', '3']));
        return [m as string, Promise.all(attempts)] as const;
      }),
      ['none', Promise.all([kcat(['-L', '-m', '3'])])],
    ]);
  });

  it.concurrent.each(MECHANISMS)('%s: produces and consumes', async (mechanism) => {
    const topic = `kcat-${mechanism}`;
    const p = await kcat([...sasl(mechanism, 'alice', 'alice-secret'), '-P', '-t', topic], 'one\ntwo\n');
    expect(p.stderr).toBe('');
    expect(p.code).toBe(0);
    const c = await kcat([...sasl(mechanism, 'alice', 'alice-secret'), '-C', '-t', topic, '-e', '-q']);
    expect(c.stdout.split('\n').filter(Boolean)).toEqual(['one', 'two']);
  });

  it.each(MECHANISMS)('%s: wrong password and unknown user are refused', async (mechanism) => {
    for (const r of await refused(mechanism)) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/SASL authentication error: Authentication failed/);
      expect(r.stdout).not.toMatch(/broker 1 at/);
    }
  });

  it('no credentials: metadata is never answered', async () => {
    const [r] = await refused('none');
    expect(r!.code).not.toBe(0);
    expect(r!.stdout).not.toMatch(/broker 1 at/);
  });
});

describe('kafkajs over SASL_PLAINTEXT', () => {
  let b: SaslBroker;
  beforeAll(async () => ({ b } = await brokerWithLog()));
  afterAll(() => b.broker.stop());
  const kafka = (mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512', username: string, password: string) =>
    new Kafka({
      clientId: 'sasl-test',
      brokers: [`127.0.0.1:${b.saslPort}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      sasl: { mechanism, username, password } as never,
    });

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)(
    '%s: produces and consumes',
    async (mechanism) => {
      const k = kafka(mechanism, 'alice', 'alice-secret');
      const topic = `kafkajs-${mechanism}`;
      // Created first: auto-creation answers the first Metadata UNKNOWN_TOPIC_OR_PARTITION, as Kafka 4
      // does, and this client retries nothing.
      const creator = k.admin();
      await creator.connect();
      await creator.createTopics({ topics: [{ topic }] });
      await creator.disconnect();
      const producer = k.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
      await producer.disconnect();
      const admin = k.admin();
      await admin.connect();
      const offsets = await admin.fetchTopicOffsets(topic);
      await admin.disconnect();
      expect(offsets).toEqual([expect.objectContaining({ partition: 0, high: '2', low: '0' })]);
      const consumer = k.consumer({ groupId: `g-${mechanism}` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const values: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed only ${values.length} records`)), 20_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            values.push(message.value!.toString());
            if (values.length === 2) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
      await consumer.disconnect();
      expect(values).toEqual(['a', 'b']);
    },
    30_000,
  );

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)(
    '%s: wrong password and unknown user are refused',
    async (mechanism) => {
      for (const [user, password] of [
        ['alice', 'nope'],
        ['nobody', 'alice-secret'],
      ]) {
        const admin = kafka(mechanism, user!, password!).admin();
        await expect(admin.connect()).rejects.toMatchObject({ name: 'KafkaJSSASLAuthenticationError' });
      }
    },
  );

  it('no credentials: kafkajs never gets metadata', async () => {
    const admin = new Kafka({
      brokers: [`127.0.0.1:${b.saslPort}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 3000,
      requestTimeout: 3000,
    }).admin();
    await expect(admin.connect().then(() => admin.listTopics())).rejects.toThrow();
    await admin.disconnect();
  });
});

describeWithTools('python3-kafka')("Debian's kafka-python and confluent-kafka over SASL_PLAINTEXT", () => {
  let b: SaslBroker;
  let lines: LogLine[];
  beforeAll(async () => ({ b, lines } = await brokerWithLog({ connectionsMaxReauthMs: 1000 })));
  afterAll(() => b.broker.stop());
  const py = (client: string, mechanism: string, user: string, password: string, topic: string, pause?: number) =>
    run(
      DEBIAN_PYTHON,
      [
        script,
        client,
        `127.0.0.1:${b.saslPort}`,
        mechanism,
        user,
        password,
        topic,
        '3',
        ...(pause ? [String(pause)] : []),
      ],
      { timeoutMs: 60_000 },
    );

  it.concurrent.each(['kafka-python', 'confluent'].flatMap((c) => MECHANISMS.map((m) => [c, m] as const)))(
    '%s %s: produces and consumes',
    async (client, mechanism) => {
      const topic = `py-${client}-${mechanism}`;
      const out = parseResult(client, await py(client, mechanism, 'alice', 'alice-secret', topic));
      expect(out).toEqual({ values: ['v0', 'v1', 'v2'] });
    },
    60_000,
  );

  it.each(['kafka-python', 'confluent'])(
    '%s: a wrong password is refused',
    async (client) => {
      const attempts = () => lines.filter((l) => l.msg === 'request' && l.api === 'SaslHandshake').length;
      const before = attempts();
      const out = parseResult(client, await py(client, 'SCRAM-SHA-512', 'alice', 'bad', `py-bad-${client}`));
      // kafka-python reports a refused bootstrap login as NoBrokersAvailable; librdkafka names it.
      expect(out.error).toMatch(client === 'confluent' ? /Authentication failed/ : /NoBrokersAvailable/);
      expect(attempts()).toBeGreaterThan(before); // it did try, and was refused
    },
    60_000,
  );

  it('kafka-python (no KIP-368) has its connection closed at session expiry, and reconnects', async () => {
    const out = parseResult(
      'kafka-python',
      await py('kafka-python', 'PLAIN', 'alice', 'alice-secret', 'py-expiry', 2.5),
    );
    expect(out).toEqual({ values: ['v0', 'v1', 'v2'] });
    expect(lines.filter((l) => /SASL session expired/.test(l.why ?? ''))).not.toHaveLength(0);
  }, 60_000);
});

describeWithTools('python3-venv')('confluent-kafka from PyPI re-authenticates (KIP-368)', () => {
  let b: SaslBroker;
  let lines: LogLine[];
  let python: string;
  beforeAll(async () => {
    ({ b, lines } = await brokerWithLog({ connectionsMaxReauthMs: 1500 }));
    python = await venvPython(REQUIREMENTS);
  }, 360_000);
  afterAll(() => b.broker.stop());

  it.each(MECHANISMS)(
    '%s: a producer outliving its session keeps its connection by re-authenticating',
    async (m) => {
      const before = reauthenticatedConnections(lines);
      const r = await run(
        python,
        [script, 'confluent', `127.0.0.1:${b.saslPort}`, m, 'alice', 'alice-secret', `reauth-${m}`, '3', '3'],
        { timeoutMs: 60_000 },
      );
      expect(parseResult('confluent-kafka', r)).toEqual({ values: ['v0', 'v1', 'v2'] });
      expect(reauthenticatedConnections(lines)).toBeGreaterThan(before);
    },
    60_000,
  );
});
