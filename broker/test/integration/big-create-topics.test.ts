// Issue 11: a 2,000-topic CreateTopics froze every client for 8 s (each topic reloaded the whole
// catalog, all in one event-loop turn). Now each topic costs O(its partitions) and the handlers
// write a slice of topics per storage call, with a turn of the event loop between slices (issue
// 29), so another client is answered while a big request runs. No timing is asserted: the broker and both clients share this process's event loop, so a
// response the other client receives between two of the big request's storage calls proves the
// loop turned in the middle of the request (a handler that never yields allows none).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import type { CreateTopicsResponse, DeleteTopicsResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { TOPICS_PER_SLICE } from '../../src/server/yield-slices';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const TOPICS = 2000;

describe('2,000 topics in one request', () => {
  const tmp = tempDir('minnow-big-create-');
  let broker: RunningBroker;
  let big: KafkaConnection;
  let other: KafkaConnection;
  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir));
    big = await KafkaConnection.connect('127.0.0.1', broker.port, { requestTimeoutMs: 120_000 });
    other = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    big.close();
    other.close();
    await broker.stop();
    tmp.cleanup();
  });

  /**
   * Sends the big request while the other client does Metadata round trips one after another;
   * returns its response, the calls of `method` on the storage and the topics they wrote, and how
   * many of those round trips ended between the first and the last call.
   */
  async function whileOtherClientAsks<R>(
    method: 'createTopics' | 'deleteTopics',
    send: () => Promise<R>,
  ): Promise<{ res: R; storageCalls: number; written: number; answeredMeanwhile: number }> {
    const events: ('storage' | 'other')[] = [];
    const storage = broker.context.storage;
    const original = storage[method].bind(storage) as (...args: unknown[]) => never;
    let written = 0;
    const spy = jest.spyOn(storage, method).mockImplementation((...args: unknown[]) => {
      events.push('storage');
      written += (args[0] as unknown[]).length;
      return original(...args);
    });
    try {
      let finished = false;
      const response = send().finally(() => (finished = true));
      // Bounded: the big request ends, or 20,000 round trips.
      for (let i = 0; !finished && i < 20_000; i++) {
        await other.send(ApiKey.Metadata, 12, {
          topics: [],
          allowAutoTopicCreation: false,
          includeTopicAuthorizedOperations: false,
        });
        events.push('other');
      }
      const res = await response;
      const between = events.slice(events.indexOf('storage'), events.lastIndexOf('storage'));
      return {
        res,
        storageCalls: events.filter((e) => e === 'storage').length,
        written,
        answeredMeanwhile: between.filter((e) => e === 'other').length,
      };
    } finally {
      spy.mockRestore();
    }
  }

  it('CreateTopics creates every topic while another client keeps being answered', async () => {
    const topics = Array.from({ length: TOPICS }, (_, i) => ({
      name: `many-${i}`,
      numPartitions: 1,
      replicationFactor: -1,
      assignments: [],
      configs: [],
    }));
    const { res, storageCalls, written, answeredMeanwhile } = await whileOtherClientAsks('createTopics', () =>
      big.send<CreateTopicsResponse>(ApiKey.CreateTopics, 7, { topics, timeoutMs: 120_000, validateOnly: false }),
    );
    expect(res.topics.filter((t) => t.errorCode !== 0)).toEqual([]);
    expect(await broker.context.storage.listTopics()).toHaveLength(TOPICS);
    expect(written).toBe(TOPICS);
    expect(storageCalls).toBeGreaterThanOrEqual(Math.ceil(TOPICS / TOPICS_PER_SLICE));
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('DeleteTopics deletes them all while another client keeps being answered', async () => {
    const topicNames = (await broker.context.storage.listTopics()).map((t) => t.name);
    expect(topicNames).toHaveLength(TOPICS);
    const { res, storageCalls, written, answeredMeanwhile } = await whileOtherClientAsks('deleteTopics', () =>
      big.send<DeleteTopicsResponse>(ApiKey.DeleteTopics, 4, { topicNames, timeoutMs: 120_000 }),
    );
    expect(res.responses.filter((t) => t.errorCode !== 0)).toEqual([]);
    expect(await broker.context.storage.listTopics()).toEqual([]);
    expect(written).toBe(TOPICS);
    expect(storageCalls).toBeGreaterThanOrEqual(Math.ceil(TOPICS / TOPICS_PER_SLICE));
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
