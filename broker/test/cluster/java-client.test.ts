// The Java client (kafka-clients 4.x, Kafka's reference client) against three brokers on one
// database: each client is given one broker only. The idempotent producer (acks=all) bootstraps
// from broker 1; a group consumes everything through broker 2; a group whose two members bootstrap
// from brokers 2 and 3 shares the partitions and commits (ClusterScenario.java). The offsets the
// producer was acknowledged are then read back through broker 3 with kcat.
import { buildDriver, driverClasspath } from '../integration/java-driver';
import { run } from '../integration/helpers';
import { describeWithTools } from '../support/external-tools';
import { runJava } from '../support/java-launch';
import { useChildCluster } from './test-database';

const PARTITIONS = 3;
const PER_PARTITION = 10;

describeWithTools(
  'postgresql',
  'java',
  'mvn',
  'kcat',
)('the Java client over three brokers', () => {
  const { cluster } = useChildCluster('cluster-java');
  beforeAll(() => buildDriver(), 300_000);

  it('produces through one broker, consumes as a group through another, and as a group spread over two', async () => {
    const bootstrap = [0, 1, 2].map((i) => cluster().address(i)).join(',');
    const r = await runJava(
      { classpath: driverClasspath('kafka-4'), main: 'minnow.javaclient.Driver', args: [bootstrap, 'cj', 'cluster'] },
      { timeoutMs: 120_000 },
    );
    const line = r.stdout.split('\n').find((l) => l.startsWith('{"scenario":"cluster"'));
    if (!line) throw new Error(`the Java driver printed no cluster result (exit ${r.code}): ${r.stderr.slice(-3000)}`);
    const out = JSON.parse(line);
    if (!out.ok) throw new Error(`the cluster scenario failed: ${line}\n${r.stderr.slice(-3000)}`);

    const values = Array.from({ length: PARTITIONS }, (_, p) =>
      Array.from({ length: PER_PARTITION }, (_, i) => `p${p}-${i}`),
    ).flat();
    // Each partition's records acknowledged at offsets 0..9, in order.
    expect(out.acked).toEqual(
      Array.from({ length: PARTITIONS }, (_, p) => Array.from({ length: PER_PARTITION }, (_, i) => `${p}/${i}`)).flat(),
    );
    expect(out.groupOne).toEqual([...values].sort());
    // The two members split the partitions and together read every record.
    expect(out.assignmentA.length).toBeGreaterThan(0);
    expect(out.assignmentB.length).toBeGreaterThan(0);
    expect([...out.assignmentA, ...out.assignmentB].sort()).toEqual(
      Array.from({ length: PARTITIONS }, (_, p) => `cj-cluster-${p}`),
    );
    // A partition that moved during the first rebalance (no commit yet) is read again by its new owner.
    expect([...new Set<string>([...out.groupTwoA, ...out.groupTwoB])].sort()).toEqual([...values].sort());
    for (const [member, assigned] of [
      [out.groupTwoA, out.assignmentA],
      [out.groupTwoB, out.assignmentB],
    ] as [string[], string[]][])
      for (const tp of assigned) {
        const p = tp.slice(tp.lastIndexOf('-') + 1);
        expect(member.filter((v) => v.startsWith(`p${p}-`))).toHaveLength(PER_PARTITION);
      }

    // The same records at the same offsets through the third broker.
    const read = await run(
      'kcat',
      ['-b', cluster().address(2), '-C', '-t', 'cj-cluster', '-o', 'beginning', '-e', '-f', '%p/%o %s\n'],
      { timeoutMs: 30_000 },
    );
    expect(read.code).toBe(0);
    expect(read.stdout.trim().split('\n').sort()).toEqual(
      Array.from({ length: PARTITIONS }, (_, p) =>
        Array.from({ length: PER_PARTITION }, (_, i) => `${p}/${i} p${p}-${i}`),
      )
        .flat()
        .sort(),
    );
  }, 180_000);
});
