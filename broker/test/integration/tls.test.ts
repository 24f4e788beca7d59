// TLS listeners (tls://, Kafka's SSL) with certificates made here by openssl (support/tls-certs.ts):
// real clients produce and consume trusting only the test CA, and a client that does not trust it
// or speaks plaintext is refused. mTLS is tls-client-auth.test.ts, certificate renewal
// tls-reload.test.ts, handshakes and connection slots tls-handshake-slots.test.ts.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { Kafka, logLevel } from 'kafkajs';
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools, requireTools, type ToolName } from '../support/external-tools';
import { loadKafkajsModules, loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { runJava } from '../support/java-launch';
import { makeCa, TestCa } from '../support/tls-certs';
import { run, startTestBroker, tempDir } from './helpers';
import { buildDriver, driverClasspath } from './java-driver';
import { venvPython } from './python-venv';
import { SSL, PLAINTEXT, apiVersionsOverTls, closedWithin, kafkajsRoundTrip } from './tls-support';

const PYTHON = '/usr/bin/python3';
/** A test that runs at once with the others when every tool is there (else skipped, as describeWithTools). */
const concurrentWith = (...tools: ToolName[]) => (requireTools(...tools) ? it.concurrent : it.concurrent.skip);

describeWithTools('openssl')('a tls:// listener next to a tcp:// one', () => {
  const tmp = tempDir('minnow-tls-');
  let ca: TestCa;
  let other: TestCa;
  let broker: RunningBroker;
  let tlsPort: number;
  let plainPort: number;
  // The tests run at once (it.concurrent: a topic each, and their time is spent waiting on client
  // processes, a JVM among them); support/lazy-broker-modules.ts says why this first.
  beforeAll(async () => {
    loadLazyBrokerModules();
    loadKafkajsModules();
    ca = makeCa(path.join(tmp.dir, 'ca'));
    other = makeCa(path.join(tmp.dir, 'other'), 'other', '/CN=someone else');
    const server = ca.server();
    broker = await startTestBroker('memory://', {
      // Groups form at once: each kafkajs group here has one member (each waited the 3 s
      // group.initial.rebalance.delay.ms for no one).
      config: {
        listeners: [SSL, PLAINTEXT],
        tlsCertFile: server.cert,
        tlsKeyFile: server.key,
        groupInitialRebalanceDelayMs: 0,
      },
    });
    tlsPort = broker.listeners[0]!.port;
    plainPort = broker.listeners[1]!.port;
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it.concurrent('names the listeners SSL and PLAINTEXT', () => {
    expect(broker.listeners.map((l) => [l.name, l.securityProtocol])).toEqual([
      ['SSL', 'SSL'],
      ['PLAINTEXT', 'PLAINTEXT'],
    ]);
  });

  it.concurrent(
    'kafkajs trusting the CA produces and consumes over TLS, told the TLS address; tcp:// sees the same records',
    async () => {
      const kafka = new Kafka({
        brokers: [`127.0.0.1:${tlsPort}`],
        ssl: { ca: [fs.readFileSync(ca.cert, 'utf8')] },
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const cluster = await admin.describeCluster();
        expect(cluster.brokers).toEqual([{ nodeId: expect.any(Number), host: '127.0.0.1', port: tlsPort }]);
        await admin.createTopics({ topics: [{ topic: 'tls-kafkajs', numPartitions: 1 }] });
      } finally {
        await admin.disconnect();
      }
      expect(await kafkajsRoundTrip(kafka, 'tls-kafkajs', ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
      const plain = new Kafka({ brokers: [`127.0.0.1:${plainPort}`], logLevel: logLevel.NOTHING });
      const consumer = plain.consumer({ groupId: 'tls-kafkajs-plain' });
      await consumer.connect();
      const seen: string[] = [];
      await consumer.subscribe({ topic: 'tls-kafkajs', fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('nothing on the tcp:// listener within 20 s')), 20_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push(String(message.value));
            if (seen.length === 3) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
      await consumer.disconnect();
      expect(seen).toEqual(['a', 'b', 'c']);
    },
    60_000,
  );

  it.concurrent('answers a client that trusts the CA, and checks out for 127.0.0.1 and localhost', async () => {
    const ok = await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(ca.cert) });
    expect(ok).toEqual({ answered: true, fingerprint256: expect.any(String) });
    const byName = await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(ca.cert), servername: 'localhost' });
    expect(byName.answered).toBe(true);
  });

  it.concurrent('a client that does not trust the CA gets no answer', async () => {
    const r = await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(other.cert) });
    expect(r).toEqual({ answered: false, error: expect.stringMatching(/self-signed|unable to verify|certificate/i) });
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${tlsPort}`],
      ssl: { ca: [fs.readFileSync(other.cert, 'utf8')] },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });
    const admin = kafka.admin();
    await expect(admin.connect()).rejects.toThrow();
    await admin.disconnect();
  });

  it.concurrent('closes a plaintext client that speaks Kafka to it, answering nothing, and keeps serving', async () => {
    const socket = net.connect(tlsPort, '127.0.0.1');
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
    socket.on('error', () => {});
    socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, 7, 'plaintext', {}));
    await closedWithin(socket, 15_000, 'plaintext client on the TLS listener');
    // At most a TLS alert record (content type 21), never a Kafka response (correlation id 7).
    expect(got.length === 0 || got[0] === 21).toBe(true);
    expect((await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(ca.cert) })).answered).toBe(true);
  });

  it.concurrent('speaks TLS 1.2 and 1.3 but not 1.1', async () => {
    const ca12 = { ca: fs.readFileSync(ca.cert), minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;
    expect((await apiVersionsOverTls(tlsPort, ca12)).answered).toBe(true);
    const ca13 = { ca: fs.readFileSync(ca.cert), minVersion: 'TLSv1.3' } as const;
    expect((await apiVersionsOverTls(tlsPort, ca13)).answered).toBe(true);
    const old = await apiVersionsOverTls(tlsPort, {
      ca: fs.readFileSync(ca.cert),
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.1',
      ciphers: 'DEFAULT@SECLEVEL=0',
    });
    expect(old.answered).toBe(false);
  });

  it.concurrent('refuses TLS 1.2 renegotiation, as Kafka does, and keeps serving', async () => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: tlsPort,
      ca: fs.readFileSync(ca.cert),
      maxVersion: 'TLSv1.2',
    });
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.renegotiate({}, () => {});
    await closedWithin(socket, 15_000, 'a client that renegotiated');
    expect((await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(ca.cert) })).answered).toBe(true);
  });

  const kcatTls = (cafile: string, args: string[], input?: string, metadataTimeoutS = 10) =>
    run(
      'kcat',
      [
        '-b',
        `127.0.0.1:${tlsPort}`,
        '-X',
        'security.protocol=ssl',
        '-X',
        `ssl.ca.location=${cafile}`,
        '-m',
        String(metadataTimeoutS),
        ...args,
      ],
      { input, timeoutMs: 30_000 },
    );

  concurrentWith('kcat')(
    'kcat produces and consumes over TLS; Metadata names the TLS address',
    async () => {
      const p = await kcatTls(ca.cert, ['-P', '-t', 'tls-kcat'], 'one\ntwo\nthree\n');
      expect(p).toMatchObject({ code: 0 });
      const c = await kcatTls(ca.cert, ['-C', '-t', 'tls-kcat', '-o', 'beginning', '-e', '-q']);
      expect(c.code).toBe(0);
      expect(c.stdout.trim().split('\n')).toEqual(['one', 'two', 'three']);
      const md = await kcatTls(ca.cert, ['-L', '-J']);
      expect(JSON.parse(md.stdout).brokers.map((b: { name: string }) => b.name)).toEqual([`127.0.0.1:${tlsPort}`]);
    },
    60_000,
  );

  concurrentWith('kcat')(
    'kcat fails without the CA',
    async () => {
      const r = await kcatTls(other.cert, ['-L', '-J'], undefined, 3);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/certificate verify failed|SSL handshake failed/i);
    },
    40_000,
  );

  concurrentWith('java', 'mvn')(
    'the Java client (kafka-clients 4.x, PEM truststore) produces and consumes over TLS, verifying the certificate and 127.0.0.1 against it',
    async () => {
      await buildDriver();
      const props = path.join(tmp.dir, 'java-tls.properties');
      const cafile = ca.cert.replace(/\\/g, '/');
      fs.writeFileSync(props, `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${cafile}\n`);
      const r = await runJava(
        {
          classpath: driverClasspath('kafka-4'),
          main: 'minnow.javaclient.Driver',
          args: [`127.0.0.1:${tlsPort}`, 'jtls', 'produce'],
          jvmOptions: [`-Dminnow.clientConfig=${props}`],
        },
        { timeoutMs: 150_000 },
      );
      const line = r.stdout.split('\n').find((l) => l.includes('"scenario":"produce"'));
      if (!line)
        throw new Error(`the Java driver printed no produce result (exit ${r.code}): ${r.stderr.slice(-3000)}`);
      const produce = JSON.parse(line);
      expect(Object.values(produce.codecs).map((c: any) => c.error)).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(produce.codecs.zstd.records).toHaveLength(20);
      expect(produce.ok).toBe(true);
    },
    400_000,
  );

  concurrentWith('python3-venv')(
    'confluent-kafka from PyPI (a current librdkafka) produces and consumes over TLS',
    async () => {
      const python = await venvPython(path.join(__dirname, 'python', 'requirements-pypi.txt'));
      const script = path.join(__dirname, 'python', 'tls_roundtrip.py');
      const args = [script, 'confluent-kafka', `127.0.0.1:${tlsPort}`, ca.cert, 'tls-confluent-pypi', '20'];
      const r = await run(python, args, { timeoutMs: 60_000 });
      if (r.code !== 0) throw new Error(`confluent-kafka (PyPI) over TLS failed (${r.code}): ${r.stderr.slice(-3000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.values).toEqual(Array.from({ length: 20 }, (_, i) => `tls ${i}`));
    },
    400_000,
  );

  concurrentWith('python3-kafka').each(['kafka-python', 'confluent-kafka'])(
    '%s produces and consumes over TLS',
    async (client) => {
      const topic = `tls-${client}`;
      const r = await run(
        PYTHON,
        [path.join(__dirname, 'python', 'tls_roundtrip.py'), client, `127.0.0.1:${tlsPort}`, ca.cert, topic, '20'],
        { timeoutMs: 60_000 },
      );
      if (r.code !== 0) throw new Error(`${client} over TLS failed (${r.code}): ${r.stderr.slice(-3000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.values).toEqual(Array.from({ length: 20 }, (_, i) => `tls ${i}`));
    },
    90_000,
  );
});
