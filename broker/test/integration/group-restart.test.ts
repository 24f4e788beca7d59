// A broker restart is invisible to a stable group (issue kafka-tools-parity item 5): the group's
// membership is stored at the end of each rebalance (groups/group-persistence.ts) and loaded when
// the group is next touched, so a kafkajs member connected through the restart keeps its member id
// and generation, heartbeats and commits on, and never joins again. Before, the restarted broker
// knew no member: UNKNOWN_MEMBER_ID, a new member id and a rebalance.
// MINNOW_TEST_LOG=1 shows the broker's log, MINNOW_KAFKAJS_LOG=1 kafkajs's debug log.
import * as path from 'node:path';
import { Consumer, Kafka, logLevel } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';

const TOPIC = 'steady';
const GROUP = 'steady-group';
const KAFKAJS_LOG = process.env.MINNOW_KAFKAJS_LOG ? logLevel.DEBUG : logLevel.NOTHING;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
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

describe('a stable kafkajs group across a broker restart (sqlite)', () => {
  const tmp = tempDir();
  const url = `sqlite://${path.join(tmp.dir, 'minnow.db')}`;
  let broker: RunningBroker | undefined;
  let consumer: Consumer | undefined;
  afterAll(async () => {
    await consumer?.disconnect();
    await broker?.stop();
    tmp.cleanup();
  });

  it('keeps the member id and generation: the member commits on with no new join', async () => {
    broker = await startTestBroker(url, { config: { groupInitialRebalanceDelayMs: 0 } });
    const port = broker.port;
    const kafka = new Kafka({
      clientId: 'steady',
      brokers: [`127.0.0.1:${port}`],
      logLevel: KAFKAJS_LOG,
      retry: { retries: 10, initialRetryTime: 100 },
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    await admin.disconnect();

    consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 300, maxWaitTimeInMs: 200 });
    const joins: { memberId: string }[] = [];
    consumer.on(consumer.events.GROUP_JOIN, (e) => joins.push({ memberId: e.payload.memberId }));
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString());
      },
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: [{ value: 'before' }] });
    await producer.disconnect();

    const committed = async (s: RunningBroker) =>
      (await s.context.storage.fetchOffsets(GROUP)).reduce((n, o) => n + o.offset, 0);
    await waitFor('the message before the restart consumed and committed', 20_000, async () =>
      seen.includes('before') && (await committed(broker!)) === 1 ? true : undefined,
    );
    const before = broker.context.groups.group(GROUP)!;
    expect(before.state).toBe('Stable');
    const generation = before.generationId;
    const memberId = [...before.members.keys()][0]!;
    expect(joins).toEqual([{ memberId }]);

    await broker.stop(); // the consumer stays up and retries
    broker = await startTestBroker(url, {
      config: {
        listeners: [{ host: '127.0.0.1', port, securityProtocol: 'PLAINTEXT' }],
        groupInitialRebalanceDelayMs: 0,
      },
    });
    const producer2 = kafka.producer();
    await producer2.connect();
    await producer2.send({ topic: TOPIC, messages: [{ value: 'after' }] });
    await producer2.disconnect();
    await waitFor('the message after the restart consumed and committed', 30_000, async () =>
      seen.includes('after') && (await committed(broker!)) === 2 ? true : undefined,
    );

    // The same member, the same generation, and no JoinGroup of the client since.
    const after = broker.context.groups.group(GROUP)!;
    expect({ state: after.state, generation: after.generationId, members: [...after.members.keys()] }).toEqual({
      state: 'Stable',
      generation,
      members: [memberId],
    });
    expect(joins).toEqual([{ memberId }]);
    expect(seen.filter((v) => v === 'before')).toHaveLength(1);
  }, 90_000);
});
