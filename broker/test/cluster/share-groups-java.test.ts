// KIP-932 share groups over three brokers on one postgres:// database with the Java client 4.x's
// KafkaShareConsumer: the group's coordinator (its lease) holds the membership, each
// share-partition lives on its partition's leader, and the client, given every broker, finds both.
// The same ShareScenario as the one-broker test (integration/share-groups-java.test.ts).
import { buildDriver, driverClasspath } from '../integration/java-driver';
import { describeWithTools } from '../support/external-tools';
import { runJava } from '../support/java-launch';
import { useChildCluster } from './test-database';

describeWithTools(
  'postgresql',
  'java',
  'mvn',
)('share groups over three brokers with the Java client', () => {
  const { cluster } = useChildCluster('cluster-share');
  beforeAll(() => buildDriver(), 300_000);

  it('shares records between two members, redelivers a released one and archives at the limit', async () => {
    const bootstrap = [0, 1, 2].map((i) => cluster().address(i)).join(',');
    const r = await runJava(
      { classpath: driverClasspath('kafka-4'), main: 'minnow.javaclient.Driver', args: [bootstrap, 'cs', 'share'] },
      { timeoutMs: 240_000 },
    );
    const line = r.stdout.split('\n').find((l) => l.startsWith('{') && l.includes('"scenario":"share"'));
    if (!line) throw new Error(`the Java driver printed no share result (exit ${r.code}): ${r.stderr.slice(-3000)}`);
    const out = JSON.parse(line);
    if (!out.ok) throw new Error(`the share scenario failed: ${line}\n${r.stderr.slice(-3000)}`);
    expect(out.shared).toMatchObject({ produced: 40, distinct: 40, deliveries: 40 });
    expect(out.release).toEqual({ seen: ['job-1#1', 'job-1#2'], afterAccept: [] });
    expect(out.limit.seen.filter((s: string) => s.startsWith('poison'))).toEqual([
      'poison#1',
      'poison#2',
      'poison#3',
      'poison#4',
      'poison#5',
    ]);
  }, 300_000);
});
