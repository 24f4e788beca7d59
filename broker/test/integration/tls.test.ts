// TLS listeners (tls://, Kafka's SSL) with certificates made here by openssl (support/tls-certs.ts):
// real clients produce and consume trusting only the test CA, a client that does not trust it or
// speaks plaintext is refused, mTLS makes the client certificate's subject the principal (Kafka's
// RFC 2253 form), a renewed certificate is served to new connections without a restart, and a
// client that never finishes its handshake gives its connection slot back.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { RunningBroker } from '../../src/server/broker';
import type { ListenerConfig } from '../../src/server/listeners';
import { principalToString, Session } from '../../src/server/session';
import { createLogger, Logger } from '../../src/logger';
import { describeWithTools } from '../support/external-tools';
import { makeCa, TestCa } from '../support/tls-certs';
import { run, startTestBroker, tempDir } from './helpers';
import { buildDriver, driverClasspath } from './java-driver';
import { venvPython } from './python-venv';

const PYTHON = '/usr/bin/python3';
const SSL: ListenerConfig = { host: '127.0.0.1', port: 0, securityProtocol: 'SSL' };
const PLAINTEXT: ListenerConfig = { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' };
/** The client certificate's subject, as openssl takes it, and as Kafka's default principal builder names it. */
const CLIENT_SUBJECT = '/C=US/O=acme/OU=eng/CN=client';
const CLIENT_PRINCIPAL = 'User:CN=client,OU=eng,O=acme,C=US';

type Outcome = { answered: true; fingerprint256: string } | { answered: false; error: string };

/**
 * Connects over TLS, sends ApiVersions v0 and waits (at most 10 s) for its answer or the end of
 * the connection: whether the broker answered a Kafka request, and with which certificate.
 */
function apiVersionsOverTls(port: number, opts: tls.ConnectionOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    let fingerprint256 = '';
    const socket = tls.connect({ host: '127.0.0.1', port, ...opts });
    const done = (o: Outcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => done({ answered: false, error: 'no answer within 10 s' }), 10_000);
    socket.once('secureConnect', () => {
      fingerprint256 = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, 1, 'tls-test', {}));
    });
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 8 && got.readInt32BE(4) === 1) done({ answered: true, fingerprint256 });
    });
    socket.on('error', (err) => done({ answered: false, error: err.message }));
    socket.on('close', () => done({ answered: false, error: 'closed' }));
  });
}

/** An open TLS connection that can send ApiVersions again and again (the reload test's old connection). */
async function openTls(port: number, opts: tls.ConnectionOptions) {
  const socket = tls.connect({ host: '127.0.0.1', port, ...opts });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  let correlationId = 100;
  return {
    fingerprint256: socket.getPeerX509Certificate()!.fingerprint256,
    /** Sends ApiVersions and resolves true once answered (false if the connection ends, or after 10 s). */
    ask(): Promise<boolean> {
      const id = ++correlationId;
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish(false), 10_000);
        const onData = (d: Buffer) => {
          if (d.length >= 8 && d.readInt32BE(4) === id) finish(true);
        };
        const onClose = () => finish(false);
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          socket.off('data', onData);
          socket.off('close', onClose);
          resolve(ok);
        };
        socket.on('data', onData);
        socket.once('close', onClose);
        socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, id, 'tls-test', {}));
      });
    },
    close: () => socket.destroy(),
  };
}

/** Resolves once the socket closes; rejects after `ms` (bounded waits, not a timing assertion). */
function closedWithin(socket: net.Socket, ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve();
    const timer = setTimeout(() => reject(new Error(`${what}: still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A logger that keeps error lines, to see what a failed reload said. */
function capturingLogger(errors: string[]): Logger {
  return createLogger('error', (line) => void errors.push(line));
}

async function kafkajsRoundTrip(kafka: Kafka, topic: string, values: string[]): Promise<string[]> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-group` });
  await consumer.connect();
  const seen: string[] = [];
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${seen.length} messages within 20 s`)), 20_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(String(message.value));
        if (seen.length >= values.length) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return seen;
}

describeWithTools('openssl')('a tls:// listener next to a tcp:// one', () => {
  const tmp = tempDir('minnow-tls-');
  let ca: TestCa;
  let other: TestCa;
  let broker: RunningBroker;
  let tlsPort: number;
  let plainPort: number;
  beforeAll(async () => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    other = makeCa(path.join(tmp.dir, 'other'), 'other', '/CN=someone else');
    const server = ca.server();
    broker = await startTestBroker('memory://', {
      config: { listeners: [SSL, PLAINTEXT], tlsCertFile: server.cert, tlsKeyFile: server.key },
    });
    tlsPort = broker.listeners[0]!.port;
    plainPort = broker.listeners[1]!.port;
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('names the listeners SSL and PLAINTEXT', () => {
    expect(broker.listeners.map((l) => [l.name, l.securityProtocol])).toEqual([
      ['SSL', 'SSL'],
      ['PLAINTEXT', 'PLAINTEXT'],
    ]);
  });

  it('kafkajs trusting the CA produces and consumes over TLS, told the TLS address; tcp:// sees the same records', async () => {
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
  }, 60_000);

  it('answers a client that trusts the CA, and checks out for 127.0.0.1 and localhost', async () => {
    const ok = await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(ca.cert) });
    expect(ok).toEqual({ answered: true, fingerprint256: expect.any(String) });
    const byName = await apiVersionsOverTls(tlsPort, { ca: fs.readFileSync(ca.cert), servername: 'localhost' });
    expect(byName.answered).toBe(true);
  });

  it('a client that does not trust the CA gets no answer', async () => {
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

  it('closes a plaintext client that speaks Kafka to it, answering nothing, and keeps serving', async () => {
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

  it('speaks TLS 1.2 and 1.3 but not 1.1', async () => {
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

  it('refuses TLS 1.2 renegotiation, as Kafka does, and keeps serving', async () => {
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

  describeWithTools('kcat')('kcat', () => {
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

    it('produces and consumes over TLS; Metadata names the TLS address', async () => {
      const p = await kcatTls(ca.cert, ['-P', '-t', 'tls-kcat'], 'one\ntwo\nthree\n');
      expect(p).toMatchObject({ code: 0 });
      const c = await kcatTls(ca.cert, ['-C', '-t', 'tls-kcat', '-o', 'beginning', '-e', '-q']);
      expect(c.code).toBe(0);
      expect(c.stdout.trim().split('\n')).toEqual(['one', 'two', 'three']);
      const md = await kcatTls(ca.cert, ['-L', '-J']);
      expect(JSON.parse(md.stdout).brokers.map((b: { name: string }) => b.name)).toEqual([`127.0.0.1:${tlsPort}`]);
    }, 60_000);

    it('fails without the CA', async () => {
      const r = await kcatTls(other.cert, ['-L', '-J'], undefined, 3);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/certificate verify failed|SSL handshake failed/i);
    }, 40_000);
  });

  describeWithTools('java', 'mvn')('the Java client (kafka-clients 4.x, PEM truststore)', () => {
    it('produces and consumes over TLS, verifying the certificate and 127.0.0.1 against it', async () => {
      await buildDriver();
      const props = path.join(tmp.dir, 'java-tls.properties');
      const cafile = ca.cert.replace(/\\/g, '/');
      fs.writeFileSync(props, `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${cafile}\n`);
      const r = await run(
        'java',
        [
          `-Dminnow.clientConfig=${props}`,
          '-cp',
          driverClasspath('kafka-4'),
          'minnow.javaclient.Driver',
          `127.0.0.1:${tlsPort}`,
          'jtls',
          'produce',
        ],
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
    }, 400_000);
  });

  describeWithTools('python3-venv')('confluent-kafka from PyPI (a current librdkafka)', () => {
    it('produces and consumes over TLS', async () => {
      const python = await venvPython(path.join(__dirname, 'python', 'requirements-pypi.txt'));
      const script = path.join(__dirname, 'python', 'tls_roundtrip.py');
      const args = [script, 'confluent-kafka', `127.0.0.1:${tlsPort}`, ca.cert, 'tls-confluent-pypi', '20'];
      const r = await run(python, args, { timeoutMs: 60_000 });
      if (r.code !== 0) throw new Error(`confluent-kafka (PyPI) over TLS failed (${r.code}): ${r.stderr.slice(-3000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.values).toEqual(Array.from({ length: 20 }, (_, i) => `tls ${i}`));
    }, 400_000);
  });

  describeWithTools('python3-kafka')('Python clients', () => {
    it.each(['kafka-python', 'confluent-kafka'])(
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
});

describeWithTools('openssl')('mTLS (TLS_CLIENT_AUTH)', () => {
  const tmp = tempDir('minnow-mtls-');
  let ca: TestCa;
  let other: TestCa;
  let client: { cert: string; key: string };
  let stranger: { cert: string; key: string };
  let server: { cert: string; key: string };
  beforeAll(() => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    other = makeCa(path.join(tmp.dir, 'other'), 'other', '/CN=someone else');
    server = ca.server();
    client = ca.client('client', CLIENT_SUBJECT);
    stranger = other.client('stranger', '/O=elsewhere/CN=stranger');
  });
  afterAll(() => tmp.cleanup());

  const withBroker = async (
    clientAuth: 'requested' | 'required',
    body: (b: RunningBroker, sessions: Session[]) => Promise<void>,
    listener: ListenerConfig = SSL,
  ) => {
    const sessions: Session[] = [];
    const b = await startTestBroker('memory://', {
      config: {
        listeners: [listener],
        tlsCertFile: server.cert,
        tlsKeyFile: server.key,
        tlsCaFile: ca.cert,
        tlsClientAuth: clientAuth,
        // These tests are about TLS, not ACLs: a broker requiring client certificates is closed
        // until ACLs open it (ALLOW_EVERYONE_IF_NO_ACL_FOUND's default), so open it here.
        allowEveryoneIfNoAclFound: true,
      },
      onConnectionOpened: (s) => sessions.push(s),
    });
    try {
      await body(b, sessions);
    } finally {
      await b.stop();
    }
  };
  const withCert = (c: { cert: string; key: string }) => ({
    ca: fs.readFileSync(ca.cert),
    cert: fs.readFileSync(c.cert),
    key: fs.readFileSync(c.key),
  });

  it('required: refuses a client without a certificate or with one from another CA', async () => {
    await withBroker('required', async (b, sessions) => {
      expect((await apiVersionsOverTls(b.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(false);
      expect((await apiVersionsOverTls(b.port, withCert(stranger))).answered).toBe(false);
      expect(sessions).toEqual([]);
    });
  });

  it('required: a client certificate from TLS_CA_FILE makes its subject the principal', async () => {
    await withBroker('required', async (b, sessions) => {
      expect((await apiVersionsOverTls(b.port, withCert(client))).answered).toBe(true);
      expect(sessions.map((s) => principalToString(s.principal))).toEqual([CLIENT_PRINCIPAL]);
      expect(sessions[0]!.listener.securityProtocol).toBe('SSL');
    });
  });

  it('requested: no certificate is ANONYMOUS, one from another CA is refused', async () => {
    await withBroker('requested', async (b, sessions) => {
      expect((await apiVersionsOverTls(b.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(true);
      expect((await apiVersionsOverTls(b.port, withCert(stranger))).answered).toBe(false);
      expect((await apiVersionsOverTls(b.port, withCert(client))).answered).toBe(true);
      expect(sessions.map((s) => principalToString(s.principal))).toEqual(['User:ANONYMOUS', CLIENT_PRINCIPAL]);
    });
  });

  it('sasl+tls://: the certificate is checked but SASL, not the certificate, names the principal', async () => {
    const saslSsl: ListenerConfig = { host: '127.0.0.1', port: 0, securityProtocol: 'SASL_SSL' };
    await withBroker(
      'required',
      async (b, sessions) => {
        expect((await apiVersionsOverTls(b.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(false);
        expect((await apiVersionsOverTls(b.port, withCert(client))).answered).toBe(true);
        expect(sessions.map((s) => [s.listener.securityProtocol, principalToString(s.principal)])).toEqual([
          ['SASL_SSL', 'User:ANONYMOUS'],
        ]);
      },
      saslSsl,
    );
  });

  it('kafkajs with its client certificate produces and consumes', async () => {
    await withBroker('required', async (b) => {
      const kafka = new Kafka({
        brokers: [`127.0.0.1:${b.port}`],
        ssl: {
          ca: [fs.readFileSync(ca.cert, 'utf8')],
          cert: fs.readFileSync(client.cert, 'utf8'),
          key: fs.readFileSync(client.key, 'utf8'),
        },
        logLevel: logLevel.NOTHING,
      });
      expect(await kafkajsRoundTrip(kafka, 'mtls-kafkajs', ['x', 'y'])).toEqual(['x', 'y']);
      // DescribeConfigs reports the policy under Kafka's name, as a static broker setting.
      const admin = kafka.admin();
      await admin.connect();
      try {
        const res = await admin.describeConfigs({
          resources: [
            {
              type: ConfigResourceTypes.BROKER,
              name: String(b.context.identity.nodeId),
              configNames: ['ssl.client.auth'],
            },
          ],
          includeSynonyms: false,
        });
        expect(res.resources[0]!.configEntries).toEqual([
          expect.objectContaining({
            configName: 'ssl.client.auth',
            configValue: 'required',
            readOnly: true,
            configSource: 4,
          }),
        ]);
      } finally {
        await admin.disconnect();
      }
    });
  }, 60_000);

  describeWithTools('kcat')('kcat', () => {
    it('with ssl.certificate.location it produces; without, it is refused', async () => {
      await withBroker('required', async (b, sessions) => {
        const base = ['-b', `127.0.0.1:${b.port}`, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${ca.cert}`];
        const withCertArgs = [
          ...base,
          '-X',
          `ssl.certificate.location=${client.cert}`,
          '-X',
          `ssl.key.location=${client.key}`,
        ];
        const p = await run('kcat', [...withCertArgs, '-P', '-t', 'mtls-kcat'], {
          input: 'hello\n',
          timeoutMs: 30_000,
        });
        expect(p.code).toBe(0);
        expect(new Set(sessions.map((s) => principalToString(s.principal)))).toEqual(new Set([CLIENT_PRINCIPAL]));
        const refused = await run('kcat', [...base, '-m', '5', '-L'], { timeoutMs: 30_000 });
        expect(refused.code).not.toBe(0);
      });
    }, 60_000);
  });
});

describeWithTools('openssl')('certificate renewal without a restart', () => {
  const tmp = tempDir('minnow-tls-reload-');
  let ca: TestCa;
  let broker: RunningBroker;
  const errors: string[] = [];
  const live = { cert: '', key: '' };
  beforeAll(async () => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    const first = ca.server('first');
    live.cert = path.join(tmp.dir, 'live.pem');
    live.key = path.join(tmp.dir, 'live.key');
    fs.copyFileSync(first.cert, live.cert);
    fs.copyFileSync(first.key, live.key);
    broker = await startTestBroker('memory://', {
      config: { listeners: [SSL], tlsCertFile: live.cert, tlsKeyFile: live.key, tlsReloadIntervalMs: 100 },
      logger: capturingLogger(errors),
    });
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  /** The certificate a new connection gets, once it differs from `old` (bounded: 15 s). */
  async function waitForNewCertificate(old: string): Promise<string> {
    for (let i = 0; i < 150; i++) {
      const r = await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) });
      if (r.answered && r.fingerprint256 !== old) return r.fingerprint256;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('new connections still get the old certificate after 15 s');
  }

  it('new connections get the renewed certificate, the open one keeps working', async () => {
    const old = await openTls(broker.port, { ca: fs.readFileSync(ca.cert) });
    try {
      expect(await old.ask()).toBe(true);
      const renewed = ca.server('renewed');
      const expected = new (await import('node:crypto')).X509Certificate(fs.readFileSync(renewed.cert)).fingerprint256;
      // As a renewal tool would: a new file renamed over the old one, cert then key.
      fs.copyFileSync(renewed.cert, `${live.cert}.new`);
      fs.renameSync(`${live.cert}.new`, live.cert);
      fs.copyFileSync(renewed.key, `${live.key}.new`);
      fs.renameSync(`${live.key}.new`, live.key);
      expect(await waitForNewCertificate(old.fingerprint256)).toBe(expected);
      expect(await old.ask()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      old.close();
    }
  }, 30_000);

  it('a renewal whose key does not match keeps the current certificate and logs why', async () => {
    const before = await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) });
    expect(before.answered).toBe(true);
    const a = ca.server('mismatch-a');
    const b = ca.server('mismatch-b');
    fs.copyFileSync(a.cert, live.cert);
    fs.copyFileSync(b.key, live.key);
    expect(broker.reloadTls()).toBe('failed');
    expect(errors.join('\n')).toMatch(/reload failed.*TLS_KEY_FILE=.*is not the key of the certificate/);
    const after = await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) });
    expect(after).toEqual(before);
  });
});

describeWithTools('openssl')('TLS handshakes and connection slots', () => {
  const tmp = tempDir('minnow-tls-slots-');
  let ca: TestCa;
  let broker: RunningBroker;
  beforeAll(async () => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    const server = ca.server();
    // One slot; a handshake not finished within CONNECTIONS_MAX_IDLE_MS (3 s here) frees it.
    broker = await startTestBroker('memory://', {
      config: {
        listeners: [SSL],
        tlsCertFile: server.cert,
        tlsKeyFile: server.key,
        maxConnections: 1,
        connectionsMaxIdleMs: 3000,
      },
    });
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('a client that never finishes its handshake holds a slot, then is disconnected and frees it', async () => {
    const silent = net.connect(broker.port, '127.0.0.1');
    silent.on('error', () => {});
    await new Promise((resolve) => silent.once('connect', resolve));
    // The silent socket holds the only slot: a real client is refused meanwhile.
    expect((await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(false);
    await closedWithin(silent, 20_000, 'a TLS client that never sent a ClientHello');
    expect((await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(true);
  }, 30_000);

  it('a plaintext client on the TLS listener gives its slot back', async () => {
    const socket = net.connect(broker.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, 1, 'plaintext', {}));
    await closedWithin(socket, 15_000, 'plaintext client on the TLS listener');
    // Bounded retry: the broker sees the close a moment after the client does.
    let answered = false;
    for (let i = 0; i < 50 && !answered; i++) {
      answered = (await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) })).answered;
      if (!answered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answered).toBe(true);
  }, 30_000);
});
