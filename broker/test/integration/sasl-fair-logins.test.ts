// Issue 29 item 1: failed logins cost the failing client, not its neighbours. Twelve failed logins
// of alice from 127.0.0.1 (kafkajs), each answered later than the one before; then bob, and alice
// with the right password, log in at once from that address with kafkajs and kcat. And the cap on
// connections from one address that have not logged in (MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP),
// which a client that never logs in cannot hold past a deadline, and the deprecated lockout
// setting, accepted without effect.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { loadConfig } from '../../src/server/config';
import { createLogger } from '../../src/logger';
import { describeWithTools } from '../support/external-tools';
import { run } from './helpers';
import { addUser, RawConnection, SaslBroker, startSaslBroker } from './sasl-support';

interface LogLine {
  msg: string;
  delayMs?: number;
  user?: string;
}

async function brokerWithLog(config: Parameters<typeof startSaslBroker>[0]) {
  const lines: LogLine[] = [];
  const logger = createLogger('debug', (l) => lines.push(JSON.parse(l) as LogLine));
  const b = await startSaslBroker(config, { realClock: true, logger });
  await addUser(b.broker.context.storage, 'alice', 'alice-secret');
  await addUser(b.broker.context.storage, 'bob', 'bob-secret');
  return { b, lines };
}

describe('twelve failed logins of one user from an address', () => {
  let b: SaslBroker;
  let lines: LogLine[];
  // Small delays so the test is quick: 5 ms, doubling, at most 400 ms.
  beforeAll(async () => {
    ({ b, lines } = await brokerWithLog({ connectionFailedAuthenticationDelayMs: 5, saslFailedLoginMaxDelayMs: 400 }));
  });
  afterAll(() => b.broker.stop());

  const kafkajsLogin = async (username: string, password: string): Promise<'ok' | string> => {
    const admin = new Kafka({
      clientId: 'fair-logins',
      brokers: [`127.0.0.1:${b.saslPort}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      sasl: { mechanism: 'scram-sha-512', username, password },
    }).admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return 'ok';
    } catch (err) {
      return (err as Error).name;
    } finally {
      await admin.disconnect();
    }
  };

  it('are answered later and later; then bob, and alice with her password, log in at once (kafkajs)', async () => {
    const took: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      expect(await kafkajsLogin('alice', `stale-${i}`)).toBe('KafkaJSSASLAuthenticationError');
      took.push(performance.now() - t0);
    }
    // Each answer waited at least its delay (lower bounds only: nothing here depends on a busy machine).
    const delays = [5, 10, 20, 40, 80, 160, 320, 400, 400, 400, 400, 400];
    took.forEach((ms, i) => expect(ms).toBeGreaterThanOrEqual(delays[i]! - 1));
    expect(lines.find((l) => l.msg === 'SASL authentication failed')).toMatchObject({ user: 'alice', delayMs: 5 });
    expect(await kafkajsLogin('bob', 'bob-secret')).toBe('ok');
    expect(await kafkajsLogin('alice', 'alice-secret')).toBe('ok');
  });

  describeWithTools('kcat')('kcat', () => {
    const kcat = (user: string, password: string) =>
      run(
        'kcat',
        [
          '-b',
          `127.0.0.1:${b.saslPort}`,
          '-X',
          'security.protocol=SASL_PLAINTEXT',
          '-X',
          'sasl.mechanisms=SCRAM-SHA-256',
          '-X',
          `sasl.username=${user}`,
          '-X',
          `sasl.password=${password}`,
          '-L',
          '-m',
          '5',
        ],
        { timeoutMs: 20_000 },
      );

    it('while alice keeps failing, bob and alice with her password get metadata', async () => {
      for (let i = 0; i < 12; i++) await kafkajsLogin('alice', `stale-${i}`);
      for (const [user, password] of [
        ['bob', 'bob-secret'],
        ['alice', 'alice-secret'],
      ] as const) {
        const r = await kcat(user, password);
        expect(r.stderr).not.toMatch(/Authentication failed/);
        expect(r.stdout).toMatch(/broker 1 at/);
        expect(r.code).toBe(0);
      }
    });
  });
});

describe('MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP', () => {
  let b: SaslBroker;
  let lines: LogLine[];
  beforeAll(async () => ({ b, lines } = await brokerWithLog({ maxUnauthenticatedConnectionsPerIp: 3 })));
  afterAll(() => b.broker.stop());

  it('closes a connection over the cap on arrival, names why, and admits again once one logs in', async () => {
    const waiting = await Promise.all([1, 2, 3].map(() => RawConnection.connect(b.saslPort)));
    for (const c of waiting) c.request(18, 3, 1, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
    for (const c of waiting) expect(await c.next()).not.toBe('closed'); // ApiVersions answered: all admitted
    const fourth = await RawConnection.connect(b.saslPort);
    expect(await fourth.next()).toBe('closed');
    expect(
      lines.some((l) => /refusing connection from 127\.0\.0\.1: 3 connections from it have not logged in/.test(l.msg)),
    ).toBe(true);
    // A logged-in client is not counted: bob logs in from a fifth connection once one slot is free.
    waiting[0]!.close();
    let admitted: 'ok' | string = 'not tried';
    for (let i = 0; i < 50 && admitted !== 'ok'; i++) {
      const admin = new Kafka({
        brokers: [`127.0.0.1:${b.saslPort}`],
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
        sasl: { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' },
      }).admin();
      admitted = await admin.connect().then(
        () => 'ok',
        (e: Error) => e.message,
      );
      await admin.disconnect();
      if (admitted !== 'ok') await new Promise((r) => setTimeout(r, 20));
    }
    expect(admitted).toBe('ok');
    for (const c of waiting) c.close();
  });
});

describe('MINNOW_SASL_MAX_FAILURES_PER_ADDRESS (deprecated)', () => {
  it('is still accepted, has no effect, and the broker says so at start', async () => {
    expect(loadConfig({ MINNOW_SASL_MAX_FAILURES_PER_ADDRESS: '10' }).saslMaxFailuresPerAddress).toBe(10);
    const { b, lines } = await brokerWithLog({ saslMaxFailuresPerAddress: 1 });
    try {
      expect(
        lines.find((l) => /MINNOW_SASL_MAX_FAILURES_PER_ADDRESS is deprecated and has no effect/.test(l.msg)),
      ).toBeDefined();
      const login = (password: string) =>
        KafkaConnection.connect('127.0.0.1', b.saslPort, {
          sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password },
        }).then(
          (c) => (c.close(), 'ok'),
          (e: Error) => e.message,
        );
      for (let i = 0; i < 3; i++) expect(await login('wrong')).not.toBe('ok');
      expect(await login('alice-secret')).toBe('ok');
    } finally {
      await b.broker.stop();
    }
  });
});

describe('a SASL connection that never logs in', () => {
  let b: SaslBroker;
  // The deadline is the shorter of 30 s and CONNECTIONS_MAX_IDLE_MS: 300 ms here.
  beforeAll(async () => ({ b } = await brokerWithLog({ connectionsMaxIdleMs: 300 })));
  afterAll(() => b.broker.stop());

  it('is closed past its deadline even while it keeps talking; a logged-in one as busy is not', async () => {
    const loggedIn = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
      sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-secret' },
    });
    const lurker = await RawConnection.connect(b.saslPort);
    // Both talk every 50 ms (never idle) until the lurker is closed, for at most 200 rounds.
    let closedAtRound = -1;
    for (let i = 0; i < 200 && closedAtRound < 0; i++) {
      lurker.request(ApiKey.ApiVersions, 3, i, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
      if ((await lurker.next()) === 'closed') closedAtRound = i;
      await loggedIn.send(ApiKey.Metadata, 12, { topics: [], allowAutoTopicCreation: false });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(closedAtRound).toBeGreaterThan(0);
    expect(await loggedIn.send(ApiKey.Metadata, 12, { topics: [], allowAutoTopicCreation: false })).toMatchObject({
      brokers: [expect.anything()],
    });
    loggedIn.close();
  });
});
