// An idempotent kafkajs producer sending to a topic without pause while a test breaks a broker,
// and the check afterwards that every record it had acknowledged is stored once at its offset.
// One partition per send(), the partitions in turn. kafkajs loses records when a send() spans
// partitions of several brokers and one dies: its retry skips every broker that already answered
// in that send (sendMessages.js, responsePerBroker), so a partition that moved to such a broker is
// never sent, its sequence is rolled back, and the NEXT send reuses those sequence numbers for
// other records, which the broker (as Kafka's ProducerStateManager would) answers as duplicates of
// the stored batch: silently lost. Seen once in kill-broker.test.ts (v234 acknowledged at the
// offset of v225). A kafkajs defect, not ours; the tests avoid it.
import { Kafka, logLevel } from 'kafkajs';
import { QUICK_FETCH } from '../integration/helpers';

export interface Load {
  /** "partition/offset" -> value, as acknowledged. */
  readonly acked: Map<string, string>;
  /** Values other producers wrote to the topic (kcat, raw requests): read back, not checked once. */
  readonly extra: string[];
  /** The send that failed after all its retries, if one did (the load stops there). */
  readonly failure: unknown;
  waitForAcks(count: number, what: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  /** Reads the topic back through `brokers`: every acknowledged record at its offset, no duplicate. */
  verify(brokers: string[]): Promise<void>;
}

/** `pauseMs`: a pause after each acknowledged send (a steadier, lighter load). */
export async function startLoad(kafka: Kafka, topic: string, partitions: number, pauseMs = 0): Promise<Load> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const acked = new Map<string, string>();
  const extra: string[] = [];
  let n = 0;
  let sends = 0;
  let stopping = false;
  let failure: unknown;
  const running = (async () => {
    while (!stopping) {
      const partition = sends++ % partitions;
      const batch = Array.from({ length: 3 }, () => ({ value: `v${n++}`, partition }));
      try {
        const results = await producer.send({ topic, acks: -1, messages: batch });
        for (const r of results) {
          const values = batch.filter((m) => m.partition === r.partition).map((m) => m.value);
          values.forEach((v, i) => acked.set(`${r.partition}/${Number(r.baseOffset) + i}`, v));
        }
      } catch (err) {
        failure = err; // a send that failed after its retries: not acknowledged, and the test says so
        break;
      }
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    acked,
    extra,
    get failure() {
      return failure;
    },
    async waitForAcks(count, what, timeoutMs = 30_000) {
      for (let waited = 0; waited < timeoutMs && acked.size < count && failure === undefined; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      if (acked.size < count) throw new Error(`${what}: ${acked.size} of ${count} acknowledged; ${String(failure)}`);
    },
    async stop() {
      stopping = true;
      await running;
      await producer.disconnect();
    },
    async verify(brokers) {
      const reader = new Kafka({ clientId: 'load-check', brokers, logLevel: logLevel.NOTHING });
      const admin = reader.admin();
      await admin.connect();
      const ends = await admin.fetchTopicOffsets(topic);
      await admin.disconnect();
      const storedCount = ends.reduce((sum, p) => sum + Number(p.high), 0);
      const consumer = reader.consumer({ groupId: `load-check-${topic}`, ...QUICK_FETCH });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const stored = new Map<string, string>();
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`read back ${stored.size} of ${storedCount}`)), 60_000);
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
      } finally {
        await consumer.disconnect();
      }
      const missing = [...acked].filter(([at, v]) => stored.get(at) !== v).map(([at, v]) => `${v}@${at}`);
      if (missing.length > 0) throw new Error(`acknowledged but not stored at their offsets: ${missing.join(', ')}`);
      const values = [...stored.values()].filter((v) => /^v\d+$/.test(v));
      const dups = values.length - new Set(values).size;
      if (dups > 0) throw new Error(`${dups} records of the idempotent producer stored twice`);
      const lost = extra.filter((v) => !values.includes(v) && ![...stored.values()].includes(v));
      if (lost.length > 0) throw new Error(`written by other producers but not stored: ${lost.join(', ')}`);
    },
  };
}
