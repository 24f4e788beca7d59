// SIGKILL one of three brokers on one database under idempotent produce load (issue 18): every
// record the producer had acknowledged is read back exactly once at its offset, and the producer
// carries on through the other two once the dead broker's lease ran out (docs/postgres.md
// "Failure cases": the batch in flight was rolled back, or committed and then recognised as a
// duplicate when retried through another broker).
import { Kafka, logLevel } from 'kafkajs';
import { describeWithPostgres, useChildCluster } from './test-database';

const PARTITIONS = 3;

/** Each partition's leader, by partition. */
const leadersOf = (m: { topics: { partitions: { partitionId: number; leader: number }[] }[] }) =>
  [...m.topics[0]!.partitions].sort((a, b) => a.partitionId - b.partitionId).map((p) => p.leader);

describeWithPostgres('SIGKILL of one broker of three', () => {
  const { cluster: current } = useChildCluster('cluster-kill');

  it('loses no acknowledged record, duplicates none, and the producer carries on', async () => {
    const kafka = new Kafka({
      clientId: 'kill-one',
      brokers: [0, 1, 2].map((i) => current().address(i)),
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000 },
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: 'load', numPartitions: PARTITIONS },
        { topic: 'placed', numPartitions: 12 },
      ],
      waitForLeaders: true,
    });
    const meta = await admin.fetchTopicMetadata({ topics: ['load'] });
    const placedBefore = leadersOf(await admin.fetchTopicMetadata({ topics: ['placed'] }));
    await admin.disconnect();
    // The broker leading partition 0 dies: its producer connection breaks mid-load.
    const victim = meta.topics[0]!.partitions.find((p) => p.partitionId === 0)!.leader;

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    /** "partition/offset" -> value, as acknowledged. */
    const acked = new Map<string, string>();
    let n = 0;
    let sends = 0;
    let stop = false;
    let failure: unknown;
    const load = (async () => {
      while (!stop) {
        // One partition per send(), the partitions in turn. kafkajs loses records when a send()
        // spans partitions of several brokers and one dies: its retry skips every broker that
        // already answered in that send (sendMessages.js, responsePerBroker), so a partition that
        // moved to such a broker is never sent, its sequence is rolled back, and the NEXT send
        // reuses those sequence numbers for other records, which the broker (as Kafka's
        // ProducerStateManager would) answers as duplicates of the stored batch: silently lost.
        // Seen here once (v234 acknowledged at the offset of v225). A kafkajs defect, not ours.
        const partition = sends++ % PARTITIONS;
        const batch = Array.from({ length: 3 }, () => ({ value: `v${n++}`, partition }));
        try {
          const results = await producer.send({ topic: 'load', acks: -1, messages: batch });
          for (const r of results) {
            const values = batch.filter((m) => m.partition === r.partition).map((m) => m.value);
            values.forEach((v, i) => acked.set(`${r.partition}/${Number(r.baseOffset) + i}`, v));
          }
        } catch (err) {
          failure = err; // a send that failed after its retries: not acknowledged, and the test says so
          break;
        }
      }
    })();
    const waitForAcks = async (count: number, what: string) => {
      for (let i = 0; i < 600 && acked.size < count && failure === undefined; i++)
        await new Promise((r) => setTimeout(r, 50));
      if (acked.size < count) throw new Error(`${what}: ${acked.size} of ${count} acknowledged; ${String(failure)}`);
    };
    try {
      await waitForAcks(200, 'before the kill');
      await current().brokers[victim - 1]!.kill9();
      const atKill = acked.size;
      await waitForAcks(atKill + 300, 'after the kill');
    } finally {
      stop = true;
      await load;
      await producer.disconnect();
    }
    expect({ failure: failure === undefined ? undefined : String(failure) }).toEqual({ failure: undefined });

    // Read everything back through the survivors.
    const survivors = [0, 1, 2].filter((i) => i !== victim - 1).map((i) => current().address(i));
    const reader = new Kafka({ clientId: 'kill-check', brokers: survivors, logLevel: logLevel.NOTHING });
    const check = reader.admin();
    await check.connect();
    const ends = await check.fetchTopicOffsets('load');
    // Only the dead broker's partitions moved (rendezvous placement, src/cluster/placement.ts).
    let placedAfter = leadersOf(await check.fetchTopicMetadata({ topics: ['placed'] }));
    for (let i = 0; i < 100 && placedAfter.includes(victim); i++) {
      await new Promise((r) => setTimeout(r, 100));
      placedAfter = leadersOf(await check.fetchTopicMetadata({ topics: ['placed'] }));
    }
    await check.disconnect();
    expect(placedBefore.filter((l) => l !== victim).length).toBeGreaterThan(0);
    expect(placedAfter.map((l, p) => (placedBefore[p] === victim ? 'moved' : l))).toEqual(
      placedBefore.map((l) => (l === victim ? 'moved' : l)),
    );
    expect(placedAfter).not.toContain(victim);
    const storedCount = ends.reduce((sum, p) => sum + Number(p.high), 0);
    const consumer = reader.consumer({ groupId: 'kill-check' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'load', fromBeginning: true });
    const stored = new Map<string, string>();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read back ${stored.size} of ${storedCount} records`)), 60_000);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          stored.set(`${partition}/${message.offset}`, String(message.value));
          if (stored.size >= storedCount) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect();
    for (const [at, value] of acked) expect({ at, value: stored.get(at) }).toEqual({ at, value });
    const values = [...stored.values()];
    expect(values.length - new Set(values).size).toBe(0);
    expect(values.length).toBeLessThanOrEqual(n);
  }, 180_000);
});
