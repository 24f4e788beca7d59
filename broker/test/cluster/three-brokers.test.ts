// Three brokers on one PostgreSQL database (issue 18): clients bootstrap from any of them and
// produce through one, consume through another; a consumer group whose members reach different
// brokers rebalances and commits. Each broker is a `minnow serve` child process.
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describeWithTools } from '../support/external-tools';
import { consumeValues, lastJson, QUICK_FETCH, run } from '../integration/helpers';
import { describeWithPostgres, useChildCluster } from './test-database';

const PYTHON = '/usr/bin/python3'; // Debian's, with python3-confluent-kafka
const kafka = (brokers: string[], clientId: string) =>
  new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, retries: 20, maxRetryTime: 1000 },
  });

describeWithPostgres('three brokers on one database', () => {
  const { cluster: current } = useChildCluster('cluster-three');

  async function createTopic(name: string, numPartitions: number): Promise<void> {
    const admin = kafka([current().address(0)], 'admin').admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: name, numPartitions }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
  }

  it('every broker answers Metadata with the three brokers and the same leaders', async () => {
    await createTopic('spread', 6);
    const views = [];
    for (let i = 0; i < 3; i++) {
      const admin = kafka([current().address(i)], `meta-${i}`).admin();
      await admin.connect();
      const [meta] = (await admin.fetchTopicMetadata({ topics: ['spread'] })).topics;
      const { brokers } = await admin.describeCluster();
      await admin.disconnect();
      views.push({
        brokers: brokers.map((b) => `${b.nodeId}@${b.host}:${b.port}`).sort(),
        leaders: meta!.partitions.sort((a, b) => a.partitionId - b.partitionId).map((p) => p.leader),
      });
    }
    expect(views[0]!.brokers).toEqual([1, 2, 3].map((id) => `${id}@${current().address(id - 1)}`).sort());
    expect(views[1]).toEqual(views[0]);
    expect(views[2]).toEqual(views[0]);
    // Six partitions spread over the three brokers.
    expect(new Set(views[0]!.leaders)).toEqual(new Set([1, 2, 3]));
  }, 60_000);

  describeWithTools('kcat')('kcat', () => {
    it('produces through broker 1 and consumes through broker 3', async () => {
      await createTopic('kc', 3);
      const lines = Array.from({ length: 30 }, (_, i) => `kcat ${i}`);
      for (let p = 0; p < 3; p++) {
        const r = await run('kcat', ['-b', current().address(0), '-P', '-t', 'kc', '-p', String(p)], {
          input: lines.filter((_, i) => i % 3 === p).join('\n') + '\n',
        });
        expect(r.code).toBe(0);
      }
      const r = await run('kcat', ['-b', current().address(2), '-C', '-t', 'kc', '-o', 'beginning', '-c', '30', '-e'], {
        timeoutMs: 30_000,
      });
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split('\n').sort()).toEqual([...lines].sort());
    }, 60_000);
  });

  it('kafkajs produces through broker 2 and consumes through broker 3', async () => {
    await createTopic('kjs', 6);
    const producer = kafka([current().address(1)], 'kjs-producer').producer({ idempotent: true });
    await producer.connect();
    const values = Array.from({ length: 60 }, (_, i) => `kafkajs ${i}`);
    await producer.send({ topic: 'kjs', acks: -1, messages: values.map((value) => ({ value })) });
    await producer.disconnect();
    const consumer = kafka([current().address(2)], 'kjs-consumer').consumer({ groupId: 'kjs-reader', ...QUICK_FETCH });
    await consumer.connect();
    expect((await consumeValues(consumer, 'kjs', 60, 30_000)).sort()).toEqual([...values].sort());
  }, 60_000);

  describeWithTools('python3-kafka')('confluent-kafka', () => {
    it('produces through broker 3 and consumes through broker 1', async () => {
      await createTopic('ck', 3);
      const r = await run(
        PYTHON,
        [
          path.join(__dirname, 'python', 'ck_two_brokers.py'),
          current().address(2),
          current().address(0),
          'ck',
          '3',
          '30',
        ],
        { timeoutMs: 90_000 },
      );
      const out = lastJson('ck_two_brokers.py', r);
      expect(out.errors).toEqual([]);
      expect(out.unflushed).toBe(0);
      expect([...out.values].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `ck ${i}`).sort());
    }, 120_000);
  });

  it('a group with members on different brokers rebalances and commits', async () => {
    await createTopic('grp', 6);
    const producer = kafka([current().address(0)], 'grp-producer').producer();
    await producer.connect();
    await producer.send({
      topic: 'grp',
      messages: Array.from({ length: 60 }, (_, i) => ({ value: `g${i}`, partition: i % 6 })),
    });
    await producer.disconnect();
    const seen = new Set<string>();
    const assigned = new Map<string, number>();
    const members = [0, 1].map((i) =>
      kafka([current().address(i)], `member-${i}`).consumer({
        groupId: 'spread-group',
        sessionTimeout: 10_000,
        heartbeatInterval: 500,
        ...QUICK_FETCH,
      }),
    );
    for (const [i, m] of members.entries()) {
      m.on(m.events.GROUP_JOIN, (e) => {
        assigned.set(`m${i}`, Object.values(e.payload.memberAssignment).flat().length);
      });
      await m.connect();
      await m.subscribe({ topic: 'grp', fromBeginning: true });
      void m.run({
        autoCommitInterval: 100,
        eachMessage: async ({ message }) => {
          seen.add(String(message.value));
        },
      });
    }
    try {
      // Both members hold partitions (the second join rebalanced the first) and all were read.
      for (let i = 0; i < 300 && !(seen.size === 60 && assigned.get('m0') && assigned.get('m1')); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(seen.size).toBe(60);
      expect(assigned.get('m0')! + assigned.get('m1')!).toBe(6);
      expect(assigned.get('m0')).toBeGreaterThan(0);
      expect(assigned.get('m1')).toBeGreaterThan(0);
    } finally {
      for (const m of members) await m.disconnect();
    }
    // The commits are in the database: any broker reports them.
    const admin = kafka([current().address(2)], 'grp-admin').admin();
    await admin.connect();
    const [offsets] = await admin.fetchOffsets({ groupId: 'spread-group', topics: ['grp'] });
    // Each broker lists the groups it coordinates; the admin client asks them all: listed once.
    const listed = (await admin.listGroups()).groups.filter((g) => g.groupId === 'spread-group');
    const described = await admin.describeGroups(['spread-group']);
    await admin.disconnect();
    expect(listed).toHaveLength(1);
    expect(described.groups[0]!.state).toBe('Empty'); // both members left
    expect(offsets!.partitions.map((p) => Number(p.offset)).reduce((a, b) => a + b, 0)).toBe(60);
  }, 90_000);

  it('a transactional producer on one broker commits; a read_committed consumer on another sees it', async () => {
    await createTopic('txn', 3);
    const producer = kafka([current().address(2)], 'txn-producer').producer({
      transactionalId: 'cluster-txn',
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const aborted = await producer.transaction();
    await aborted.send({ topic: 'txn', messages: [{ value: 'aborted', partition: 0 }] });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({
      topic: 'txn',
      messages: [0, 1, 2].map((p) => ({ value: `committed ${p}`, partition: p })),
    });
    await committed.commit();
    await producer.disconnect();
    const consumer = kafka([current().address(0)], 'txn-reader').consumer({
      groupId: 'txn-reader',
      readUncommitted: false,
      ...QUICK_FETCH,
    });
    await consumer.connect();
    expect((await consumeValues(consumer, 'txn', 3, 30_000)).sort()).toEqual([
      'committed 0',
      'committed 1',
      'committed 2',
    ]);
  }, 60_000);
});
