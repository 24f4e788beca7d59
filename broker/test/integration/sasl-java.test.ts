// The Java client over sasl+tcp:// (issue 13): its admin manages SCRAM users as kafka-configs does
// (alterUserScramCredentials / describeUserScramCredentials, Kafka's refusal of too few
// iterations), and a producer that outlives CONNECTIONS_MAX_REAUTH_MS re-authenticates on its live
// connection (KIP-368). The driver build's SaslCheck (broker/test/java) runs it.
import { createLogger } from '../../src/logger';
import { describeWithTools } from '../support/external-tools';
import { runJava } from '../support/java-launch';
import { buildDriver, driverClasspath } from './java-driver';
import { addUser, SaslBroker, startSaslBroker } from './sasl-support';

const REAUTH_MS = 2000;

interface LogLine {
  msg: string;
  connectionId?: number;
  api?: string;
}

describeWithTools('java', 'mvn')('Java client (kafka-clients 4.x) over SASL_PLAINTEXT', () => {
  let b: SaslBroker;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    await buildDriver();
    b = await startSaslBroker(
      { connectionsMaxReauthMs: REAUTH_MS },
      { realClock: true, logger: createLogger('debug', (l) => lines.push(JSON.parse(l) as LogLine)) },
    );
    await addUser(b.broker.context.storage, 'admin', 'admin-secret');
  }, 300_000);
  afterAll(() => b.broker.stop());

  it.each(['PLAIN', 'SCRAM-SHA-256'])(
    'admin logs in with %s, adds a SCRAM-SHA-512 user; that user produces across a re-authentication and consumes',
    async (mechanism) => {
      lines.length = 0;
      const topic = `java-${mechanism}`;
      const r = await runJava(
        {
          classpath: driverClasspath('kafka-4'),
          main: 'minnow.javaclient.SaslCheck',
          args: [`127.0.0.1:${b.saslPort}`, mechanism, 'admin', 'admin-secret', topic, String(REAUTH_MS * 2)],
        },
        { timeoutMs: 90_000 },
      );
      const last = r.stdout.trim().split('\n').pop() ?? '';
      if (r.code !== 0 || !last.startsWith('{'))
        throw new Error(`SaslCheck exited ${r.code}: ${r.stderr.slice(-4000)}`);
      expect(JSON.parse(last)).toEqual({
        described: ['SCRAM-SHA-512', 8192],
        weak: 'UnacceptableCredentialException',
        values: ['first', 'second'],
      });
      // Some connection sent SaslHandshake again: the client re-authenticated instead of reconnecting.
      const handshakes = new Map<number, number>();
      for (const l of lines)
        if (l.msg === 'request' && l.api === 'SaslHandshake')
          handshakes.set(l.connectionId!, (handshakes.get(l.connectionId!) ?? 0) + 1);
      expect([...handshakes.values()].some((n) => n > 1)).toBe(true);
    },
    120_000,
  );
});
