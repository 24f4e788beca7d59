// The coordinator of a Java client's group is SIGKILLed (docs/postgres.md "A dead coordinator and
// kafkajs"): the Java consumer marks a coordinator it cannot reach unknown and looks it up again.
// The broker that takes the group once the lease has run out loads its stored membership
// (groups/group-persistence.ts), so the member carries on there with its member id and generation,
// with no rejoin, and from its commits, as with Kafka: kafkajs restarts instead (coordinator-failover.test.ts).
import { Kafka, logLevel } from 'kafkajs';
import { lastJson } from '../integration/helpers';
import { buildDriver, driverClasspath } from '../integration/java-driver';
import { describeWithTools } from '../support/external-tools';
import { runJava } from '../support/java-launch';
import { coordinatorVia } from './child-cluster';
import { useChildCluster } from './test-database';

// The driver's names for prefix "fj" (FailoverScenario).
const TOPIC = 'fj-failover';
const GROUP = 'fj-failover-g';

describeWithTools(
  'postgresql',
  'java',
  'mvn',
)('the coordinator of a Java consumer group is SIGKILLed', () => {
  const { cluster: current } = useChildCluster('cluster-failover-java');
  beforeAll(() => buildDriver(), 300_000);

  it('the running member carries on with the broker that takes the group, without a rejoin, from its commits', async () => {
    const coordinator = await coordinatorVia(current(), 0, GROUP);
    const survivors = [0, 1, 2].filter((i) => i !== coordinator - 1);
    const kafka = new Kafka({
      clientId: 'failover-java',
      brokers: [current().address(survivors[0]!)],
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000 },
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    const wave = async (name: string) =>
      producer.send({
        topic: TOPIC,
        messages: Array.from({ length: 30 }, (_, i) => ({ value: `${name}${i}`, partition: i % 3 })),
      });
    const committed = async () => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return t!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    };
    let exited = false;
    const java = runJava(
      {
        classpath: driverClasspath('kafka-4'),
        main: 'minnow.javaclient.Driver',
        args: [current().address(survivors[0]!), 'fj', 'failover'],
      },
      { timeoutMs: 120_000 },
    ).finally(() => (exited = true));
    try {
      await wave('a');
      for (let i = 0; i < 600 && !exited && (await committed()) < 30; i++) await new Promise((r) => setTimeout(r, 100));
      if ((await committed()) < 30) throw new Error(`the first wave was not committed: ${JSON.stringify(await java)}`);
      await current().brokers[coordinator - 1]!.kill9();
      await wave('b');
      const r = lastJson('the Java failover scenario', await java);
      expect({ ok: r.ok, distinct: r.distinct }).toEqual({ ok: true, distinct: 60 });
      // Assigned once: the new coordinator loaded the membership, so the member did not rejoin (it
      // did, once more, before membership was stored).
      expect({ assignments: r.assignments, r }).toMatchObject({ assignments: 1 });
      // Nothing committed before the kill was read again.
      expect(Object.entries(r.reads as Record<string, number>).filter(([v, n]) => v.startsWith('a') && n > 1)).toEqual(
        [],
      );
      expect(await committed()).toBe(60);
      expect(survivors.map((i) => i + 1)).toContain(await coordinatorVia(current(), survivors[0]!, GROUP));
    } finally {
      await java.catch(() => {});
      await producer.disconnect();
      await admin.disconnect();
    }
  }, 180_000);
});
