// One broker of three loses PostgreSQL while the others still reach it (docs/postgres.md "Failure
// cases": a broker loses PostgreSQL). Broker 3 reaches the database through a TCP proxy the test
// cuts (connections reset) or black-holes (connections open, bytes dropped: a lost route on AWS).
// Expected: broker 3's lease runs out and it stops coordinating (retriable errors) within the
// lease; the others drop it from Metadata and take its partitions and groups; an idempotent
// kafkajs producer, kcat and a consumer group bootstrapped on all three carry on through the
// others, and no acknowledged record is lost; healed, broker 3 joins again (a new cluster epoch)
// and serves.
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { QUICK_FETCH, run } from '../integration/helpers';
import { describeWithTools } from '../support/external-tools';
import { TEST_LEASE_MS } from './child-cluster';
import { TcpProxy } from './tcp-proxy';
import { useChildCluster } from './test-database';
import { startLoad } from './produce-load';

const CUT = 2; // broker index 2, node id 3
const PARTITIONS = 3;
/** Bounded waits: a few leases. */
const WAIT_MS = 6 * TEST_LEASE_MS;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = WAIT_MS): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms (${String(last)})`);
    await sleep(200);
  }
}

/** kafkajs's disconnect() can hang on a member whose coordinator moved: bounded. */
async function disconnect(consumer: Consumer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([consumer.disconnect().catch(() => {}), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
  clearTimeout(timer);
}

describeWithTools('postgresql', 'kcat')('a broker cut off from PostgreSQL', () => {
  let proxy: TcpProxy | undefined;
  const { cluster } = useChildCluster('cluster-cut', async (url, i) => {
    if (i !== CUT) return url;
    const p = await TcpProxy.forUrl(url);
    proxy = p.proxy;
    return p.url;
  });
  afterAll(() => proxy?.stop());
  afterEach(async () => {
    const b = cluster().brokers[CUT]!;
    if (!b.alive)
      console.log(
        `broker 3 exited: ${JSON.stringify(await b.exited)}\n${[...b.lines.slice(-40).map((l) => JSON.stringify(l)), ...b.rawLines].join('\n')}`,
      );
  });

  const all = () => [0, 1, 2].map((i) => cluster().address(i));

  /** One request to broker i on a fresh connection (a black-holed broker may never answer it). */
  async function ask<R>(i: number, apiKey: number, version: number, body: unknown): Promise<R> {
    const conn = await KafkaConnection.connect('127.0.0.1', cluster().brokers[i]!.port, {
      requestTimeoutMs: 3000,
      connectTimeoutMs: 3000,
    });
    try {
      return await conn.send<R>(apiKey, version, body);
    } finally {
      conn.close();
    }
  }

  /** Broker i's live set and the leader epoch (the cluster epoch) it gives `topic`. */
  async function view(i: number, topic: string): Promise<{ brokers: number[]; epoch: number }> {
    const res = await ask<m.MetadataResponse>(i, ApiKey.Metadata, 9, {
      topics: topic ? [{ name: topic }] : [],
      allowAutoTopicCreation: false,
    });
    return {
      brokers: res.brokers.map((b) => b.nodeId).sort(),
      epoch: res.topics[0]?.partitions[0]?.leaderEpoch ?? -1,
    };
  }

  /** What broker i answers a Heartbeat of a member it does not know: its coordinator gate's verdict. */
  const heartbeat = (i: number, groupId: string) =>
    ask<m.HeartbeatResponse>(i, ApiKey.Heartbeat, 0, { groupId, generationId: 1, memberId: 'nobody' }).then(
      (r) => r.errorCode,
    );

  /** A group id broker 1 places on node 3 (the broker that will lose the database). */
  async function groupOnCutBroker(prefix: string): Promise<string> {
    for (let k = 0; k < 100; k++) {
      const res = await ask<m.FindCoordinatorResponse>(0, ApiKey.FindCoordinator, 3, {
        key: `${prefix}-${k}`,
        keyType: 0,
      });
      if (res.errorCode === ErrorCode.NONE && res.nodeId === CUT + 1) return `${prefix}-${k}`;
    }
    throw new Error('no group id placed on node 3');
  }

  async function consume(consumer: Consumer, topic: string, seen: Map<string, number>): Promise<void> {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = String(message.value);
        seen.set(v, (seen.get(v) ?? 0) + 1);
      },
    });
  }

  /** A Fetch (max_wait 30 s) waiting on broker 3 answers a produce through broker 1 before 25 s. */
  async function wakesUp(topic: string): Promise<void> {
    const created = await ask<m.CreateTopicsResponse>(0, ApiKey.CreateTopics, 7, {
      ...m.defaultCreateTopicsRequest(),
      timeoutMs: 5000,
      topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const conn = await KafkaConnection.connect('127.0.0.1', cluster().brokers[CUT]!.port, { requestTimeoutMs: 60_000 });
    let timer: NodeJS.Timeout | undefined;
    try {
      const fetched = conn.send<m.FetchResponse>(ApiKey.Fetch, 12, {
        ...m.defaultFetchRequest(),
        maxWaitMs: 30_000,
        minBytes: 1,
        topics: [
          {
            topic,
            partitions: [
              {
                partition: 0,
                currentLeaderEpoch: -1,
                fetchOffset: 0n,
                lastFetchedEpoch: -1,
                logStartOffset: -1n,
                partitionMaxBytes: 1 << 20,
              },
            ],
          },
        ],
      });
      await sleep(1000);
      const produced = await ask<m.ProduceResponse>(0, ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [
          {
            name: topic,
            partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value: Buffer.from('wake') }] }) }],
          },
        ],
      });
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
      const tooLate = new Promise<'too late'>((r) => (timer = setTimeout(() => r('too late'), 25_000)));
      const res = await Promise.race([fetched, tooLate]);
      expect(res === 'too late' ? res : (res.responses[0]!.partitions[0]!.records?.length ?? 0) > 0).toBe(true);
    } finally {
      clearTimeout(timer);
      conn.close();
    }
  }

  for (const mode of ['cut', 'blackHole'] as const) {
    it(`${mode}: the others take over, nothing acknowledged is lost, and the broker rejoins when healed`, async () => {
      const topic = `load-${mode}`;
      const kafka = new Kafka({
        clientId: `lost-db-${mode}`,
        brokers: all(),
        logLevel: logLevel.NOTHING,
        requestTimeout: 5000,
        retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000 },
      });
      // Whatever an earlier test left: broker 3 reaches the database and is in every view.
      proxy!.heal();
      await until('three brokers', async () => ((await view(0, '')).brokers.length === 3 ? true : undefined));
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
      await admin.disconnect();
      const group = await groupOnCutBroker(`g-${mode}`);
      expect(await heartbeat(CUT, group)).toBe(ErrorCode.UNKNOWN_MEMBER_ID); // node 3 coordinates it

      const seen = new Map<string, number>();
      const consumer = kafka.consumer({
        groupId: group,
        sessionTimeout: 10_000,
        heartbeatInterval: 500,
        ...QUICK_FETCH,
      });
      await consume(consumer, topic, seen);
      const load = await startLoad(kafka, topic, PARTITIONS).catch(async (err) => {
        await disconnect(consumer);
        throw err;
      });
      try {
        await load.waitForAcks(100, 'before the loss');
        const before = await view(0, topic);
        expect(before.brokers).toEqual([1, 2, 3]);

        proxy![mode]();
        // Broker 3 fences itself: its coordinator gate refuses (retriable) instead of acting.
        const fenced = await until('broker 3 stops coordinating', async () => {
          const code = await heartbeat(CUT, group);
          return code === ErrorCode.UNKNOWN_MEMBER_ID ? undefined : code;
        });
        expect([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR]).toContain(fenced);
        // The others drop it, with a newer epoch, and one of them takes its group.
        const without = await until('brokers 1 and 2 drop broker 3', async () => {
          const v = await view(0, topic);
          return v.brokers.length === 2 ? v : undefined;
        });
        expect(without.brokers).toEqual([1, 2]);
        expect(without.epoch).toBeGreaterThan(before.epoch);
        expect((await view(1, topic)).brokers).toEqual([1, 2]);

        // The producer carries on through brokers 1 and 2, and so does kcat (bootstrapped on all three).
        await load.waitForAcks(load.acked.size + 100, 'while broker 3 is cut off');
        const lines = Array.from({ length: 20 }, (_, i) => `kcat ${mode} ${i}`);
        const r = await run(
          'kcat',
          [
            '-b',
            all().join(','),
            '-P',
            '-t',
            topic,
            '-p',
            '0',
            '-X',
            'enable.idempotence=true',
            '-X',
            'socket.timeout.ms=5000',
          ],
          {
            input: lines.join('\n') + '\n',
            timeoutMs: 60_000,
          },
        );
        // librdkafka may log a request to broker 3 that timed out or failed before it fenced itself,
        // or its connection closed by broker 3 once fenced, on its bootstrap handle or its node-id one
        // (`ADDRESS/bootstrap`, `ADDRESS/3`), and goes on through the others: kcat succeeds, and
        // nothing else is reported.
        const cutAddress = cluster().address(CUT);
        const cutHandles = [`${cutAddress}/bootstrap`, `${cutAddress}/${CUT + 1}:`]; // node id = index + 1
        const otherErrors = r.stderr.split('\n').filter((l) => l !== '' && !cutHandles.some((h) => l.includes(h)));
        expect({ code: r.code, otherErrors }).toEqual({ code: 0, otherErrors: [] });
        load.extra.push(...lines);

        // After a black hole the old connections stay silent: the broker must find that out itself.
        proxy!.heal(mode === 'blackHole' ? 'silent' : 'reset');
        const rejoined = await until('broker 3 joins again', async () => {
          const v = await view(0, topic);
          return v.brokers.length === 3 ? v : undefined;
        });
        expect(rejoined.epoch).toBeGreaterThan(without.epoch);
        // It serves again: it answers Metadata itself, takes produce, and coordinates its group.
        await until('broker 3 serves again', async () => {
          const v = await view(CUT, topic);
          return v.brokers.length === 3 && v.epoch >= rejoined.epoch ? v : undefined;
        });
        const produced = await ask<m.ProduceResponse>(CUT, ApiKey.Produce, 9, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [
            {
              name: topic,
              partitionData: [
                { index: 1, records: encodeRecordBatch({ records: [{ value: Buffer.from(`healed ${mode}`) }] }) },
              ],
            },
          ],
        });
        expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
        load.extra.push(`healed ${mode}`);
        // LOAD_IN_PROGRESS (14) for good: another broker still holds the group's lease row;
        // NOT_AVAILABLE (15): its claim or its load of the group failed.
        let answered: number | undefined;
        await until('broker 3 coordinates again', async () => {
          answered = await heartbeat(CUT, group);
          return answered === ErrorCode.COORDINATOR_NOT_AVAILABLE || answered === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
            ? undefined
            : answered;
        }).catch((err: Error) => {
          throw new Error(`${err.message}; its last answer: error code ${answered}`);
        });
        await load.waitForAcks(load.acked.size + 50, 'after the heal');
        // Its LISTEN connection is a new one: a fetch waiting on broker 3 wakes for a produce through broker 1.
        await wakesUp(`wake-${mode}`);
      } catch (err) {
        await disconnect(consumer);
        throw err;
      } finally {
        await load.stop();
      }
      expect({ failure: load.failure === undefined ? undefined : String(load.failure) }).toEqual({
        failure: undefined,
      });

      // Every acknowledged record is stored once at its offset, and the group consumed them all.
      await load.verify(all());
      const wanted = [...load.acked.values(), ...load.extra];
      try {
        await until(
          'the group consumes every acknowledged record',
          async () => (wanted.every((v) => seen.has(v)) ? true : undefined),
          30_000,
        );
      } finally {
        await disconnect(consumer);
      }
    }, 150_000);
  }
});
