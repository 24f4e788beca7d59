// Issue 11: a 2,000-topic CreateTopics froze every client for 8 s (each topic reloaded the whole
// catalog, all in one event-loop turn). Now each topic costs O(its partitions) and the handler
// yields to the event loop between slices, so another client is answered while the big request
// runs. No timing is asserted: the broker and both clients share this process's event loop, so a
// response the other client receives between two of the big request's topic creations proves the
// loop turned in the middle of the request (a handler that never yields allows none).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import type { CreateTopicsResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const TOPICS = 2000;

describe('a 2,000-topic CreateTopics', () => {
  const tmp = tempDir('minnow-big-create-');
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir));
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('creates every topic while another client keeps being answered', async () => {
    const events: ('create' | 'other')[] = [];
    const storage = broker.context.storage;
    const createTopic = storage.createTopic.bind(storage);
    const spy = jest.spyOn(storage, 'createTopic').mockImplementation((...args) => {
      events.push('create');
      return createTopic(...args);
    });
    const big = await KafkaConnection.connect('127.0.0.1', broker.port, { requestTimeoutMs: 120_000 });
    const other = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const topics = Array.from({ length: TOPICS }, (_, i) => ({ name: `many-${i}`, numPartitions: 1, replicationFactor: -1, assignments: [], configs: [] }));
      let finished = false;
      const response = big
        .send<CreateTopicsResponse>(ApiKey.CreateTopics, 7, { topics, timeoutMs: 120_000, validateOnly: false })
        .finally(() => (finished = true));
      // Round trips one after another (bounded: the big request ends, or 20,000 trips).
      for (let i = 0; !finished && i < 20_000; i++) {
        await other.send(ApiKey.Metadata, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        events.push('other');
      }
      const res = await response;
      expect(res.topics.filter((t) => t.errorCode !== 0)).toEqual([]);
      expect(storage.listTopics()).toHaveLength(TOPICS);
      const first = events.indexOf('create');
      const last = events.lastIndexOf('create');
      expect(events.filter((e) => e === 'create')).toHaveLength(TOPICS);
      const answeredMeanwhile = events.slice(first, last).filter((e) => e === 'other').length;
      expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
    } finally {
      spy.mockRestore();
      big.close();
      other.close();
    }
  }, 120_000);
});
