// The coordinator of a group dies (docs/postgres.md "Failure cases"): its lease runs out, the broker
// that placement names takes the group, the members (still running, connected through the brokers
// that survive) find it and rejoin, and the offsets they committed are intact: nothing committed
// before the kill is read again. Either the dead broker stays dead, or a supervisor restarts it at its
// address, where its old members get COORDINATOR_LOAD_IN_PROGRESS, then UNKNOWN_MEMBER_ID.
//
// kafkajs 2.2.4 never looks a coordinator up again after a connection error to it: its heartbeat
// and commits keep going to the dead address until the consumer's retries (`retry.retries`, each
// attempt one fetch of up to `maxWaitTimeInMs`) run out; then the consumer crashes and restarts
// (`restartOnFailure`), which finds the new coordinator. So the members here keep kafkajs's default
// retry count (5) and a short fetch wait, which bound that recovery to seconds.
import { Kafka, logLevel } from 'kafkajs';
import { coordinatorVia, type ChildCluster } from './child-cluster';
import { describeWithPostgres, useChildCluster } from './test-database';

/**
 * Two members consume a first wave and commit it; `kill(i)` ends broker i, the group's coordinator;
 * a second wave is produced; the members, never restarted by the test, must commit it too.
 * `sessionTimeout` is the members'. Returns the coordinator's node id before the kill and after.
 */
async function membersRideThrough(
  cluster: ChildCluster,
  kill: (i: number) => Promise<void>,
  sessionTimeout: number,
  name: string,
): Promise<{ before: number; after: number; survivors: number[] }> {
  const GROUP = `${name}-group`;
  const topic = `${name}-topic`;
  const coordinator = await coordinatorVia(cluster, 0, GROUP);
  const survivors = [0, 1, 2].filter((i) => i !== coordinator - 1);
  // Requests to a broker that died are retried until the survivors have taken its partitions over
  // (the lease): 30 retries up to 1 s apart.
  const kafka = (i: number, clientId: string) =>
    new Kafka({
      clientId,
      brokers: [cluster.address(i)],
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000 },
    });
  const admin = kafka(survivors[0]!, 'failover-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  const producer = kafka(survivors[0]!, 'failover-producer').producer();
  await producer.connect();
  const wave = async (name: string) =>
    producer.send({
      topic,
      messages: Array.from({ length: 30 }, (_, i) => ({ value: `${name}${i}`, partition: i % 3 })),
    });
  const committed = async () => {
    const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [topic] });
    return t!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
  };
  /** value -> times consumed */
  const seen = new Map<string, number>();
  const crashes: string[] = [];
  const until = async (what: string, cond: () => Promise<boolean> | boolean) => {
    for (let i = 0; i < 600; i++) {
      if (await cond()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    const logs = cluster.brokers
      .flatMap((b, i) => b.lines.map((l) => ({ broker: i + 1, ...l })))
      .filter((l) => /coordinat|membership|lease/.test(l.msg));
    throw new Error(
      `timed out waiting for ${what}: ${seen.size} values seen, ${await committed()} committed; crashes: ${crashes.join('; ')}; brokers: ${JSON.stringify(logs)}`,
    );
  };

  let stopping = false;
  // The members reach the group through the brokers that survive (their bootstrap stays up).
  const members = survivors.map((i, n) =>
    kafka(i, `member-${n}`).consumer({
      groupId: GROUP,
      sessionTimeout,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 500,
      // The restart after the retries is kafkajs's way to a new coordinator; none once the test stops.
      retry: { initialRetryTime: 100, retries: 5, maxRetryTime: 1000, restartOnFailure: async () => !stopping },
    }),
  );
  for (const m of members) {
    m.on(m.events.CRASH, (e) => crashes.push(`${e.payload.error.name}: ${e.payload.error.message}`));
    await m.connect();
    await m.subscribe({ topic, fromBeginning: true });
    void m.run({
      autoCommitInterval: 100,
      eachMessage: async ({ message }) => {
        const v = String(message.value);
        seen.set(v, (seen.get(v) ?? 0) + 1);
      },
    });
  }
  try {
    await wave('a');
    await until('the first wave committed', async () => seen.size === 30 && (await committed()) === 30);
    await kill(coordinator - 1);
    await wave('b');
    await until('the second wave committed', async () => seen.size === 60 && (await committed()) === 60);
  } finally {
    stopping = true;
    for (const m of members) await m.disconnect();
    await producer.disconnect();
    await admin.disconnect();
  }
  // Nothing committed before the kill was read again. (Records read while the members could not
  // reach a coordinator were not committed: those may come again after the rejoin, as in Kafka:
  // at-least-once.)
  expect([...seen].filter(([v, n]) => v.startsWith('a') && n > 1)).toEqual([]);
  return { before: coordinator, after: await coordinatorVia(cluster, survivors[0]!, GROUP), survivors };
}

// One cluster for both (a second one cost a start and a stop of three brokers): the second test
// first brings back the broker the first one killed, as a supervisor would, with its own group.
describeWithPostgres('the coordinator of a group is SIGKILLed', () => {
  const { cluster: current } = useChildCluster('cluster-failover');

  it('the running members rejoin on another broker and carry on from their commits', async () => {
    // The members' rejoin on another broker waits for their old selves' sessions to end: 6 s,
    // Kafka's group.min.session.timeout.ms (with 10 s the second wave was read 10.2 s after the
    // kill, with 6 s 7.3 s).
    const { after, survivors } = await membersRideThrough(
      current(),
      (i) => current().brokers[i]!.kill9(),
      6_000,
      'failover',
    );
    expect(survivors.map((i) => i + 1)).toContain(after);
  }, 120_000);

  it('and restarted at its address: the running members rejoin through it and carry on from their commits', async () => {
    for (const [i, b] of current().brokers.entries()) if (!b.alive) await current().restart(i);
    await current().untilAllListed();
    // 10 s, as before: with 6 s this test took 11.7 s instead of 6-7 s in two runs of five (not
    // diagnosed; the restart may outlast a 6 s session).
    const { before, after } = await membersRideThrough(current(), (i) => current().restart(i), 10_000, 'restart');
    // The same live set places the group on the same broker: the new process took it over.
    expect(after).toBe(before);
  }, 120_000);
});
