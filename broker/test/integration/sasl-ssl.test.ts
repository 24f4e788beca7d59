// SASL over TLS (sasl+tls://, Kafka's SASL_SSL), with a certificate made here by openssl: kcat,
// kafkajs, kafka-python and confluent-kafka log in with each mechanism, produce and consume; a
// wrong password is refused; the TLS layer is the TLS listener's (tls.test.ts covers certificates).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { DEBIAN_PYTHON, describeWithTools } from '../support/external-tools';
import { loadKafkajsModules, loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { makeCa, TestCa } from '../support/tls-certs';
import { run, tempDir } from './helpers';
import { addUser, SaslBroker, startSaslBroker } from './sasl-support';

const MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
const script = path.join(__dirname, 'python', 'sasl_roundtrip.py');

describeWithTools('openssl')('SASL_SSL (sasl+tls://)', () => {
  const tmp = tempDir('minnow-sasl-ssl-');
  let ca: TestCa;
  let b: SaslBroker;
  // Each block's tests run at once (it.concurrent: a topic each, and their time is spent waiting
  // on clients, a refused kcat 3 s); support/lazy-broker-modules.ts says why this first.
  beforeAll(async () => {
    loadLazyBrokerModules();
    loadKafkajsModules();
    ca = makeCa(path.join(tmp.dir, 'ca'));
    const server = ca.server();
    b = await startSaslBroker(
      {
        listeners: [
          { host: '127.0.0.1', port: 0, securityProtocol: 'SASL_SSL' },
          { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
        ],
        tlsCertFile: server.cert,
        tlsKeyFile: server.key,
      },
      { realClock: true },
    );
    await addUser(b.broker.context.storage, 'alice', 'alice-secret');
  });
  afterAll(async () => {
    await b.broker.stop();
    tmp.cleanup();
  });

  describeWithTools('kcat')('kcat', () => {
    const kcat = (mechanism: string, password: string, args: string[], input?: string) =>
      run(
        'kcat',
        [
          '-b',
          `127.0.0.1:${b.saslPort}`,
          '-X',
          'security.protocol=SASL_SSL',
          '-X',
          `ssl.ca.location=${ca.cert}`,
          '-X',
          `sasl.mechanisms=${mechanism}`,
          '-X',
          'sasl.username=alice',
          '-X',
          `sasl.password=${password}`,
          ...args,
        ],
        { input, timeoutMs: 20_000 },
      );

    it.concurrent.each(MECHANISMS)('%s: produces and consumes; a wrong password is refused', async (mechanism) => {
      const topic = `ssl-kcat-${mechanism}`;
      // The refused one waits out its `-m 3` for metadata: alongside the round trip, not after it.
      const refused = kcat(mechanism, 'wrong', ['-L', '-m', '3']);
      const p = await kcat(mechanism, 'alice-secret', ['-P', '-t', topic], 'one\ntwo\n');
      expect([p.code, p.stderr]).toEqual([0, '']);
      const c = await kcat(mechanism, 'alice-secret', ['-C', '-t', topic, '-e', '-q']);
      expect(c.stdout.split('\n').filter(Boolean)).toEqual(['one', 'two']);
      const bad = await refused;
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/SASL authentication error: Authentication failed/);
    });
  });

  it.concurrent.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)(
    'kafkajs %s: produces and reads back',
    async (m) => {
      const kafka = new Kafka({
        brokers: [`127.0.0.1:${b.saslPort}`],
        ssl: { ca: [fs.readFileSync(ca.cert, 'utf8')] },
        sasl: { mechanism: m, username: 'alice', password: 'alice-secret' } as never,
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
      });
      const topic = `ssl-kafkajs-${m}`;
      // Created first: auto-creation answers the first Metadata UNKNOWN_TOPIC_OR_PARTITION, as Kafka 4
      // does, and this client retries nothing.
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic }] });
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ value: 'a' }] });
      await producer.disconnect();
      expect(await admin.fetchTopicOffsets(topic)).toEqual([expect.objectContaining({ partition: 0, high: '1' })]);
      await admin.disconnect();
    },
  );

  describeWithTools('python3-kafka')('Python clients', () => {
    it.concurrent.each(['kafka-python', 'confluent'].flatMap((c) => MECHANISMS.map((m) => [c, m] as const)))(
      '%s %s: produces and consumes',
      async (client, mechanism) => {
        const r = await run(
          DEBIAN_PYTHON,
          [
            script,
            client,
            `127.0.0.1:${b.saslPort}`,
            mechanism,
            'alice',
            'alice-secret',
            `ssl-py-${client}-${mechanism}`,
            '3',
          ],
          { timeoutMs: 60_000, env: { ...process.env, MINNOW_TEST_CA: ca.cert } },
        );
        const last = r.stdout.trim().split('\n').pop() ?? '';
        if (!last.startsWith('{')) throw new Error(`${client} exited ${r.code}: ${r.stderr.slice(-2000)}`);
        expect(JSON.parse(last)).toEqual({ values: ['v0', 'v1', 'v2'] });
      },
      60_000,
    );
  });
});
