// The coordinator of a group dies (docs/postgres.md "Failure cases"): its lease runs out, the next
// broker by placement takes the group, the members rediscover it and rejoin (one rebalance), and
// the offsets they committed are intact: nothing committed is read again.
import { Consumer, Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { describeWithPostgres, useChildCluster } from './test-database';

const GROUP = 'failover-group';

// Opt-in (MINNOW_TEST_COORDINATOR_FAILOVER=1) until it is reliable: kafkajs members whose
// coordinator is killed under them sometimes stall (they keep fetching, never commit again, and
// disconnect() can hang), which would hang the suite. The broker side (a survivor takes the
// group's lease, offsets intact) is also covered by postgres-current().test.ts.
const describeFailover = process.env.MINNOW_TEST_COORDINATOR_FAILOVER === '1' ? describeWithPostgres : describe.skip;

describeFailover('the coordinator of a group is SIGKILLed', () => {
  const { cluster: current } = useChildCluster('cluster-failover');

  async function coordinatorVia(i: number): Promise<number> {
    const [host, port] = current().address(i).split(':');
    const conn = await KafkaConnection.connect(host!, Number(port));
    try {
      return (await conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [GROUP] })).coordinators[0]
        .nodeId;
    } finally {
      conn.close();
    }
  }

  it('the members rejoin on another broker and carry on from their commits', async () => {
    const coordinator = await coordinatorVia(0);
    const survivors = [0, 1, 2].filter((i) => i !== coordinator - 1);
    const kafka = (i: number, clientId: string) =>
      new Kafka({
        clientId,
        brokers: [current().address(i)],
        logLevel: logLevel.NOTHING,
        retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000 },
      });
    const admin = kafka(survivors[0]!, 'failover-admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'fo', numPartitions: 3 }], waitForLeaders: true });
    const producer = kafka(survivors[0]!, 'failover-producer').producer();
    await producer.connect();
    const wave = async (name: string) =>
      producer.send({
        topic: 'fo',
        messages: Array.from({ length: 30 }, (_, i) => ({ value: `${name}${i}`, partition: i % 3 })),
      });
    const committed = async () => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: ['fo'] });
      return t!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    };
    // Bounded by kafkajs's own recovery: a member whose coordinator died retries its requests there
    // (30 retries, up to 1 s apart) before it looks the coordinator up again.
    const until = async (what: string, cond: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 1500; i++) {
        if (await cond()) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      const logs = current()
        .brokers.flatMap((b, i) => b.lines.map((l) => ({ broker: i + 1, ...l })))
        .filter((l) => /coordinat|membership|lease/.test(l.msg));
      throw new Error(
        `timed out waiting for ${what}: ${seen.size} values seen, ${await committed()} committed; crashes: ${crashes.join('; ')}; brokers: ${JSON.stringify(logs)}`,
      );
    };

    let stopping = false;
    /** value -> times consumed */
    const seen = new Map<string, number>();
    const crashes: string[] = [];
    // Members reach the group through the brokers that survive (their bootstrap stays up).
    const startMembers = async (generation: string) => {
      const members = survivors.map((i, n) =>
        kafka(i, `${generation}-${n}`).consumer({
          groupId: GROUP,
          sessionTimeout: 10_000,
          heartbeatInterval: 500,
          // Once the test disconnects a member, no kafkajs restart may outlive it.
          retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000, restartOnFailure: async () => !stopping },
        }),
      );
      for (const m of members) {
        m.on(m.events.CRASH, (e) => crashes.push(`${e.payload.error.name}: ${e.payload.error.message}`));
        await m.connect();
        await m.subscribe({ topic: 'fo', fromBeginning: true });
        void m.run({
          autoCommitInterval: 100,
          eachMessage: async ({ message }) => {
            const v = String(message.value);
            seen.set(v, (seen.get(v) ?? 0) + 1);
          },
        });
      }
      return members;
    };
    const stopMembers = async (members: Consumer[]) => {
      stopping = true;
      for (const m of members) await m.disconnect();
      stopping = false;
    };

    // kafkajs members whose coordinator is killed under them do not always recover in place (a
    // member can keep fetching without ever committing again): the application's restart is what
    // this test gives them, and what it checks is the broker side: a survivor takes the group and
    // the committed offsets are intact.
    let members = await startMembers('first');
    try {
      await wave('a');
      await until('the first wave committed', async () => seen.size === 30 && (await committed()) === 30);
      await current().brokers[coordinator - 1]!.kill9();
      await stopMembers(members);
      await wave('b');
      members = await startMembers('second');
      await until('the second wave committed', async () => seen.size === 60 && (await committed()) === 60);
    } finally {
      await stopMembers(members);
      await producer.disconnect();
      await admin.disconnect();
    }
    // A survivor coordinates the group now, and nothing committed before the kill was read again.
    expect(survivors.map((i) => i + 1)).toContain(await coordinatorVia(survivors[0]!));
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
  }, 300_000);
});
