// group.initial.rebalance.delay.ms at Kafka's default (3000 ms): two kafkajs consumers starting a
// moment apart share the group's first rebalance (generation 1) instead of the first one getting
// everything at once and a second rebalance following when the other arrives.
import { Consumer, Kafka, logLevel } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

const TOPIC = 'delayed';
const GROUP = 'delayed-group';
/** The broker's minimum session timeout; a short rebalance timeout caps how far the delay extends (3000 + 1000 ms). */
const CONSUMER_OPTS = {
  groupId: GROUP,
  sessionTimeout: 6000,
  rebalanceTimeout: 4000,
  heartbeatInterval: 500,
  maxWaitTimeInMs: 200,
};
const JOINED_WITHIN_MS = 15_000;

describe("consumer group with Kafka's initial rebalance delay", () => {
  let broker: RunningBroker;
  const consumers: Consumer[] = [];
  beforeAll(async () => {
    broker = await startTestBroker('memory://'); // the default delay: nothing set
    await broker.context.storage.createTopic(TOPIC, 2, {});
  });
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.disconnect()));
    await broker.stop();
  });

  it('gives two consumers starting a moment apart one rebalance', async () => {
    expect(broker.config.groupInitialRebalanceDelayMs).toBe(3000);
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });
    const joins: string[] = [];
    const joined = new Promise<void>((resolve) => {
      for (const name of ['a', 'b']) {
        const c = kafka.consumer(CONSUMER_OPTS);
        c.on(c.events.GROUP_JOIN, () => {
          joins.push(name);
          if (joins.length === 2) resolve();
        });
        consumers.push(c);
      }
    });
    const start = async (c: Consumer) => {
      await c.connect();
      await c.subscribe({ topic: TOPIC, fromBeginning: true });
      await c.run({ eachMessage: async () => {} });
    };
    // kafkajs's run() resolves only once the consumer has joined: start the second 300 ms after the first, not after its join.
    const first = start(consumers[0]!);
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([first, start(consumers[1]!)]);
    const timeout = new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`only ${joins.length} group joins within ${JOINED_WITHIN_MS} ms`)),
        JOINED_WITHIN_MS,
      ).unref(),
    );
    await Promise.race([joined, timeout]);
    expect(joins.sort()).toEqual(['a', 'b']); // each joined once
    expect(broker.context.groups.group(GROUP)!.generationId).toBe(1);
  }, 30_000);
});
