// SIGKILL one of three brokers on one database under idempotent produce load (issue 18): every
// record the producer had acknowledged is read back exactly once at its offset, and the producer
// carries on through the other two once the dead broker's lease ran out (docs/postgres.md
// "Failure cases": the batch in flight was rolled back, or committed and then recognised as a
// duplicate when retried through another broker).
import { Kafka, logLevel } from 'kafkajs';
import { startLoad } from './produce-load';
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

    const load = await startLoad(kafka, 'load', PARTITIONS);
    try {
      await load.waitForAcks(200, 'before the kill');
      await current().brokers[victim - 1]!.kill9();
      await load.waitForAcks(load.acked.size + 300, 'after the kill');
    } finally {
      await load.stop();
    }
    expect({ failure: load.failure === undefined ? undefined : String(load.failure) }).toEqual({ failure: undefined });

    // Read everything back through the survivors.
    const survivors = [0, 1, 2].filter((i) => i !== victim - 1).map((i) => current().address(i));
    const reader = new Kafka({ clientId: 'kill-check', brokers: survivors, logLevel: logLevel.NOTHING });
    const check = reader.admin();
    await check.connect();
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
    // Every acknowledged record once, at its offset (produce-load.ts).
    await load.verify(survivors);
  }, 180_000);
});
