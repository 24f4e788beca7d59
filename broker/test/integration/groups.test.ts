// Consumer groups with real kafkajs consumers against the broker on SQLite: three members share a
// 6-partition topic (each partition owned by exactly one member, each message consumed exactly
// once), a killed member (no LeaveGroup) is removed by session timeout and its partitions move, a
// member leaving moves its partitions at once, and committed offsets survive a broker restart.
// MINNOW_TEST_LOG=1 shows the broker's log, MINNOW_KAFKAJS_LOG=1 kafkajs's debug log.
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { Admin, Consumer, Kafka, logLevel, Producer } from 'kafkajs';
import { consumerAssignment } from '../../src/protocol/consumer-protocol';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';

// Group tests run with no initial rebalance delay (Kafka's 3000 ms is the broker default) to stay fast.
const NO_DELAY = 0;

const TOPIC = 'orders';
const GROUP = 'order-processors';
const PARTITIONS = [0, 1, 2, 3, 4, 5];
/** The broker's minimum (group.min.session.timeout.ms), so a killed member goes quickly. */
const SESSION_MS = 6000;
const CONSUMER_OPTS = {
  groupId: GROUP,
  sessionTimeout: SESSION_MS,
  rebalanceTimeout: 10_000,
  heartbeatInterval: 500,
  maxWaitTimeInMs: 200,
};
const KAFKAJS_LOG = process.env.MINNOW_KAFKAJS_LOG ? logLevel.DEBUG : logLevel.NOTHING;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = `: ${(err as Error).message}`;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
}

/** Who received which message (key "partition:offset" -> consumer names). */
class Ledger {
  readonly byMessage = new Map<string, { value: string; by: string[] }>();
  add(consumer: string, partition: number, offset: string, value: string): void {
    const k = `${partition}:${offset}`;
    const e = this.byMessage.get(k) ?? { value, by: [] };
    e.by.push(consumer);
    this.byMessage.set(k, e);
  }
  /** Entries whose value belongs to `batch`. */
  of(batch: string) {
    return [...this.byMessage.entries()].filter(([, e]) => e.value.startsWith(`${batch}-`));
  }
}

const kafkaAt = (port: number, clientId: string) =>
  new Kafka({
    clientId,
    brokers: [`127.0.0.1:${port}`],
    logLevel: KAFKAJS_LOG,
    retry: { retries: 8, initialRetryTime: 100 },
  });

async function startConsumer(kafka: Kafka, name: string, ledger: Ledger): Promise<Consumer> {
  const consumer = kafka.consumer(CONSUMER_OPTS);
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) =>
      ledger.add(name, partition, message.offset, message.value!.toString()),
  });
  return consumer;
}

/**
 * A kafkajs consumer in a child process, so it can be killed without a LeaveGroup. It reports each
 * message as a JSON line on stdout.
 */
function startChildConsumer(port: number, name: string, ledger: Ledger): ChildProcess {
  const script = `
    const { Kafka, logLevel } = require('kafkajs');
    const [port, name, topic, opts] = process.argv.slice(1);
    const kafka = new Kafka({ clientId: name, brokers: ['127.0.0.1:' + port], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
    const consumer = kafka.consumer(JSON.parse(opts));
    (async () => {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ partition, message }) => {
        process.stdout.write(JSON.stringify({ partition, offset: message.offset, value: message.value.toString() }) + '\\n');
      } });
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script, String(port), name, TOPIC, JSON.stringify(CONSUMER_OPTS)], {
    cwd: path.join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buf = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, nl)) as { partition: number; offset: string; value: string };
      buf = buf.slice(nl + 1);
      ledger.add(name, m.partition, m.offset, m.value);
    }
  });
  return child;
}

/** Waits for a Stable group of `n` members and returns member (client id) -> assigned partitions. */
async function stableAssignment(admin: Admin, n: number): Promise<Map<string, number[]>> {
  return waitFor(`a Stable group of ${n} members owning all ${PARTITIONS.length} partitions`, 45_000, async () => {
    const { groups } = await admin.describeGroups([GROUP]);
    const g = groups[0]!;
    if (g.state !== 'Stable' || g.members.length !== n) return undefined;
    const owners = new Map<string, number[]>();
    for (const m of g.members) {
      const a = consumerAssignment(m.memberAssignment);
      if (!a) return undefined;
      owners.set(
        m.clientId,
        a.assignedPartitions.filter((t) => t.topic === TOPIC).flatMap((t) => t.partitions),
      );
    }
    if (owners.size !== n) return undefined;
    return owners;
  });
}

/** Asserts every partition is owned by exactly one member. */
function expectPartitionsCoveredOnce(owners: Map<string, number[]>): void {
  const all = [...owners.values()].flat().sort((a, b) => a - b);
  expect(all).toEqual(PARTITIONS);
}

async function produceBatch(producer: Producer, batch: string, perPartition: number): Promise<number> {
  const messages = PARTITIONS.flatMap((partition) =>
    Array.from({ length: perPartition }, (_, i) => ({ partition, value: `${batch}-${partition}-${i}` })),
  );
  await producer.send({ topic: TOPIC, messages });
  return messages.length;
}

/** Waits for all of `batch` and checks: each message once, by the owner of its partition. */
async function expectConsumedOnceByOwners(
  ledger: Ledger,
  batch: string,
  count: number,
  owners: Map<string, number[]>,
): Promise<void> {
  await waitFor(`${count} messages of batch ${batch}`, 30_000, () =>
    ledger.of(batch).length >= count ? true : undefined,
  );
  const entries = ledger.of(batch);
  expect(entries).toHaveLength(count);
  for (const [key, e] of entries) {
    expect({ key, by: e.by }).toEqual({ key, by: [e.by[0]] }); // exactly once
    const partition = Number(key.split(':')[0]);
    expect(owners.get(e.by[0]!)).toContain(partition);
  }
}

describe('consumer groups with kafkajs (SQLite storage)', () => {
  const tmp = tempDir();
  const url = `sqlite://${tmp.dir}/groups.db`;
  let broker: RunningBroker;
  let admin: Admin;
  let producer: Producer;
  const consumers: Consumer[] = [];
  let child: ChildProcess | undefined;
  const ledger = new Ledger();

  beforeAll(async () => {
    broker = await startTestBroker(url, { config: { groupInitialRebalanceDelayMs: NO_DELAY } });
    const kafka = kafkaAt(broker.port, 'setup');
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS.length }] });
    producer = kafka.producer();
    await producer.connect();
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    for (const c of consumers) await c.disconnect().catch(() => {});
    await producer?.disconnect().catch(() => {});
    await admin?.disconnect().catch(() => {});
    await broker?.stop();
    tmp.cleanup();
  });

  it('three members share the partitions; each message is consumed exactly once', async () => {
    consumers.push(await startConsumer(kafkaAt(broker.port, 'c1'), 'c1', ledger));
    consumers.push(await startConsumer(kafkaAt(broker.port, 'c2'), 'c2', ledger));
    child = startChildConsumer(broker.port, 'c3', ledger);
    const owners = await stableAssignment(admin, 3);
    expectPartitionsCoveredOnce(owners);
    expect([...owners.keys()].sort()).toEqual(['c1', 'c2', 'c3']);
    for (const parts of owners.values()) expect(parts).toHaveLength(2);

    const n = await produceBatch(producer, 'one', 10);
    await expectConsumedOnceByOwners(ledger, 'one', n, owners);
  }, 90_000);

  it('a killed member (no LeaveGroup) is dropped after its session timeout and its partitions move', async () => {
    const before = await stableAssignment(admin, 3);
    child!.kill('SIGKILL');
    const owners = await stableAssignment(admin, 2);
    expectPartitionsCoveredOnce(owners);
    expect([...owners.keys()].sort()).toEqual(['c1', 'c2']);
    const moved = before.get('c3')!;
    expect([...owners.values()].flat()).toEqual(expect.arrayContaining(moved));

    const n = await produceBatch(producer, 'two', 10);
    await expectConsumedOnceByOwners(ledger, 'two', n, owners);
    expect(ledger.of('two').some(([, e]) => e.by.includes('c3'))).toBe(false);
  }, 90_000);

  it('a member that leaves hands its partitions over', async () => {
    await consumers.pop()!.disconnect(); // c2: LeaveGroup
    const owners = await stableAssignment(admin, 1);
    expect(owners.get('c1')!.sort((a, b) => a - b)).toEqual(PARTITIONS);
    const n = await produceBatch(producer, 'three', 5);
    await expectConsumedOnceByOwners(ledger, 'three', n, owners);
  }, 90_000);

  it('committed offsets survive a broker restart: the group resumes after what it consumed', async () => {
    const ends = await admin.fetchTopicOffsets(TOPIC);
    const endOf = new Map(ends.map((p) => [p.partition, p.high]));
    // kafkajs commits after each batch; wait until the group's commits reach the end of every partition.
    await waitFor('offsets committed up to the end of every partition', 20_000, async () => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return t!.partitions.every((p) => p.offset === endOf.get(p.partition)) ? true : undefined;
    });
    await consumers.pop()!.disconnect(); // c1: the group is now Empty
    await admin.disconnect();
    await producer.disconnect();
    await broker.stop();

    broker = await startTestBroker(url, { config: { groupInitialRebalanceDelayMs: NO_DELAY } });
    const kafka = kafkaAt(broker.port, 'after-restart');
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer();
    await producer.connect();
    const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    expect(new Map(t!.partitions.map((p) => [p.partition, p.offset]))).toEqual(endOf);
    expect((await admin.listGroups()).groups).toEqual([{ groupId: GROUP, protocolType: '' }]);

    const n = await produceBatch(producer, 'four', 3);
    consumers.push(await startConsumer(kafkaAt(broker.port, 'c4'), 'c4', ledger));
    const owners = await stableAssignment(admin, 1);
    await expectConsumedOnceByOwners(ledger, 'four', n, owners);
    // Resumed from the commits: nothing consumed before the restart came again.
    expect([...ledger.byMessage.values()].filter((e) => e.by.includes('c4') && !e.value.startsWith('four-'))).toEqual(
      [],
    );
  }, 90_000);

  it('a member connected through a restart on the same port carries on (its membership was stored)', async () => {
    const port = broker.port;
    const endOf = new Map((await admin.fetchTopicOffsets(TOPIC)).map((p) => [p.partition, p.high]));
    await waitFor('c4 to commit everything', 20_000, async () => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return t!.partitions.every((p) => p.offset === endOf.get(p.partition)) ? true : undefined;
    });
    await admin.disconnect();
    await producer.disconnect();
    await broker.stop(); // c4 stays up and retries
    broker = await startTestBroker(url, {
      config: {
        listeners: [{ host: '127.0.0.1', port, securityProtocol: 'PLAINTEXT' }],
        groupInitialRebalanceDelayMs: NO_DELAY,
      },
    });
    const kafka = kafkaAt(port, 'after-second-restart');
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer();
    await producer.connect();

    const owners = await stableAssignment(admin, 1);
    expect([...owners.keys()]).toEqual(['c4']);
    const n = await produceBatch(producer, 'five', 2);
    await expectConsumedOnceByOwners(ledger, 'five', n, owners);
    expect([...ledger.byMessage.values()].filter((e) => e.by.length > 1)).toEqual([]);
  }, 90_000);
});
