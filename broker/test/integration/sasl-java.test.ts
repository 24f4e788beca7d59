// The Java client over sasl+tcp:// (issue 13): its admin manages SCRAM users as kafka-configs does
// (alterUserScramCredentials / describeUserScramCredentials, Kafka's refusal of too few
// iterations), and a producer that outlives CONNECTIONS_MAX_REAUTH_MS re-authenticates on its live
// connection (KIP-368). test/java-sasl/SaslCheck.java runs in java's source-file mode on the
// classpath the broker/test/java build writes (built here if missing, as java-client.test.ts does).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createLogger } from '../../src/logger';
import { describeWithTools } from '../support/external-tools';
import { run } from './helpers';
import { addUser, SaslBroker, startSaslBroker } from './sasl-support';

const JAVA_DIR = path.join(__dirname, '..', 'java');
const CLASSPATH = path.join(JAVA_DIR, 'kafka-4', 'target', 'classpath.txt');
const CHECK = path.join(__dirname, '..', 'java-sasl', 'SaslCheck.java');
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
    if (!fs.existsSync(CLASSPATH)) {
      const pom = path.join(JAVA_DIR, 'pom.xml');
      let r = await run('mvn', ['-q', '-B', '-o', '-f', pom, 'package'], { timeoutMs: 240_000 });
      if (r.code !== 0) r = await run('mvn', ['-q', '-B', '-f', pom, 'package'], { timeoutMs: 240_000 });
      if (r.code !== 0) throw new Error(`mvn package of ${JAVA_DIR} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    }
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
      const classpath = fs.readFileSync(CLASSPATH, 'utf8').trim();
      const topic = `java-${mechanism}`;
      const r = await run(
        'java',
        [
          '-cp',
          classpath,
          CHECK,
          `127.0.0.1:${b.saslPort}`,
          mechanism,
          'admin',
          'admin-secret',
          topic,
          String(REAUTH_MS * 2),
        ],
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
