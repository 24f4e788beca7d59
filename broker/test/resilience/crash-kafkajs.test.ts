// A real client across kill -9: kafkajs's idempotent producer (acks -1) keeps sending while the
// broker is SIGKILLed and restarted on the same file and port. kafkajs reconnects and retries what
// was in flight; it must carry on without a fatal error, and every message it acknowledged must be
// in the log exactly once, at the offset it was given. (The commit-then-kill window, where a retry
// must be answered as a duplicate, is rarely hit with kafkajs's one request in flight: crash.test.ts
// pins it with five in flight per partition.)
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ChildBroker } from '../../tools/resilience/child-broker';
import { tempDir } from '../integration/helpers';
import { freePort } from '../../tools/kafka-oracle/kafka';

const KILLS = 5;
// The read-back group forms at once: it has one member (it waited the 3 s
// group.initial.rebalance.delay.ms for no one).
const ENV = { LOG_LEVEL: 'info', GROUP_INITIAL_REBALANCE_DELAY_MS: '0' };

describe('kafkajs idempotent producer across kill -9', () => {
  const tmp = tempDir('minnow-crash-kafkajs-');
  afterAll(() => tmp.cleanup());

  it(`every acknowledged message is stored once at its offset after ${KILLS} kills`, async () => {
    const port = await freePort();
    const storageUrl = `sqlite://${path.join(tmp.dir, 'kafkajs.db')}`;
    let broker = await ChildBroker.start({ storageUrl, port, env: ENV });
    const kafka = new Kafka({
      clientId: 'crash-kafkajs',
      brokers: [`127.0.0.1:${port}`],
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 1000 },
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    /** offset -> value, as kafkajs acknowledged them. */
    const acked = new Map<number, string>();
    let n = 0;
    let stop = false;
    /** Resolves when the next send starts (the kill aims at a batch in flight). */
    let sendStarted: () => void = () => {};
    const load = (async () => {
      while (!stop) {
        const values = Array.from({ length: 5 }, () => `m${n++}`);
        const sent = producer.send({ topic: 'kjs', acks: -1, messages: values.map((value) => ({ value })) });
        sendStarted();
        const [meta] = await sent;
        values.forEach((v, i) => acked.set(Number(meta!.baseOffset) + i, v));
      }
    })();
    try {
      for (let k = 0; k < KILLS; k++) {
        const before = acked.size;
        while (acked.size < before + 50) await new Promise((r) => setTimeout(r, 20));
        // Kill 0-3 ms after a send starts, aiming at a batch in flight.
        await new Promise<void>((resolve) => (sendStarted = resolve));
        await new Promise((r) => setTimeout(r, k % 4));
        await broker.kill9();
        broker = await ChildBroker.start({ storageUrl, port, env: ENV });
      }
      const before = acked.size;
      while (acked.size < before + 50) await new Promise((r) => setTimeout(r, 20));
    } finally {
      stop = true;
      await load;
      await producer.disconnect();
    }
    // Read the whole log back.
    const consumer = kafka.consumer({ groupId: 'crash-kafkajs-check' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'kjs', fromBeginning: true });
    const stored = new Map<number, string>();
    const highest = Math.max(...acked.keys());
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          stored.set(Number(message.offset), message.value!.toString());
          if (Number(message.offset) >= highest) resolve();
        },
      });
    });
    await consumer.disconnect();
    await broker.stop();
    for (const [offset, value] of acked) expect({ offset, value: stored.get(offset) }).toEqual({ offset, value });
    // Exactly once: no value stored twice (a retried batch appended again would be).
    const values = [...stored.values()];
    expect(values.length - new Set(values).size).toBe(0);
  }, 120_000);
});
