// mTLS (TLS_CLIENT_AUTH, Kafka's ssl.client.auth): a required or requested client certificate
// from TLS_CA_FILE makes its subject the principal (Kafka's RFC 2253 form); one from another CA is
// refused; on sasl+tls:// SASL names the principal. Real clients (kafkajs, kcat) with certificates.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import type { ListenerConfig } from '../../src/server/listeners';
import { principalToString, Session } from '../../src/server/session';
import { describeWithTools } from '../support/external-tools';
import { makeCa, TestCa } from '../support/tls-certs';
import { run, startTestBroker, tempDir } from './helpers';
import { SSL, CLIENT_SUBJECT, CLIENT_PRINCIPAL, apiVersionsOverTls, kafkajsRoundTrip } from './tls-support';

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
        // kafkajs's group forms at once: it has one member (it waited the 3 s
        // group.initial.rebalance.delay.ms for no one).
        groupInitialRebalanceDelayMs: 0,
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
