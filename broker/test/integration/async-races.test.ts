// Issue 18: with storage answering by Promise, two requests can interleave between a check and
// the write it decides. The broker's storage here answers its reads a turn of the event loop
// late, as a network engine would, and two clients race for the same topic: the catalog changes
// run one at a time (server/keyed-serial.ts), so exactly one creates it.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { CreateTopicsResponse, MetadataResponse } from '../../src/protocol/messages';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { engineOf, startTestBroker } from './helpers';

const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));

describe('check-then-write across an await (slow reads)', () => {
  let broker: RunningBroker;
  let a: KafkaConnection;
  let b: KafkaConnection;
  const restore: (() => void)[] = [];
  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    a = await KafkaConnection.connect('127.0.0.1', broker.port);
    b = await KafkaConnection.connect('127.0.0.1', broker.port);
    const storage = broker.context.storage;
    const engine = engineOf(broker);
    for (const method of ['topic', 'totalPartitions'] as const) {
      const spy = jest
        .spyOn(storage, method)
        .mockImplementation(((...args: never[]) =>
          later((engine[method] as (...a: never[]) => unknown)(...args))) as never);
      restore.push(() => spy.mockRestore());
    }
  });
  afterAll(async () => {
    for (const r of restore) r();
    a.close();
    b.close();
    await broker.stop();
  });

  it('two CreateTopics for one name: one creates it, the other gets TOPIC_ALREADY_EXISTS', async () => {
    const create = (c: KafkaConnection) =>
      c.send<CreateTopicsResponse>(ApiKey.CreateTopics, 7, {
        topics: [{ name: 'raced', numPartitions: 2, replicationFactor: -1, assignments: [], configs: [] }],
        timeoutMs: 5000,
        validateOnly: false,
      });
    const answers = await Promise.all([create(a), create(b)]);
    expect(answers.map((r) => r.topics[0]!.errorCode).sort((x, y) => x - y)).toEqual([
      ErrorCode.NONE,
      ErrorCode.TOPIC_ALREADY_EXISTS,
    ]);
    expect(engineOf(broker).topic('raced')?.partitionCount).toBe(2);
  });

  it('two Metadata requests auto-creating one name: created once, then answered by the next', async () => {
    const createTopic = jest.spyOn(broker.context.storage, 'createTopic');
    try {
      const ask = (c: KafkaConnection) =>
        c.send<MetadataResponse>(ApiKey.Metadata, 12, {
          topics: [{ name: 'auto-raced', topicId: ZERO_UUID }],
          allowAutoTopicCreation: true,
          includeTopicAuthorizedOperations: false,
        });
      // Both answered as Kafka 4 answers while it creates a topic (UNKNOWN_TOPIC_OR_PARTITION).
      const answers = await Promise.all([ask(a), ask(b)]);
      expect(answers.map((r) => r.topics[0]!.errorCode)).toEqual([
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ]);
      expect(createTopic).toHaveBeenCalledTimes(1);
      const next = await ask(a);
      expect(next.topics[0]!.errorCode).toBe(ErrorCode.NONE);
      expect(next.topics[0]!.partitions.length).toBeGreaterThan(0);
    } finally {
      createTopic.mockRestore();
    }
  });
});
