// Fetches Kafka answers at once, whatever max_wait_ms says (issue 11 item 10: one of them held
// SIGTERM for its max_wait_ms, 24.8 days): one naming no partition (ReplicaManager.fetchMessages,
// fetchInfos.isEmpty) and one naming a fetch session the broker never gave (FetchManager.newContext:
// FETCH_SESSION_ID_NOT_FOUND). Each request below would wait 2^31-1 ms if the broker waited.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const FOREVER = 2 ** 31 - 1;

describe('fetches answered at once', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir));
    await broker.context.storage.createTopic('w', 1, {});
  });
  // A connection per test: a request still waiting fails only its own test, after 10 s.
  beforeEach(async () => {
    conn = await KafkaConnection.connect('127.0.0.1', broker.port, { requestTimeoutMs: 10_000 });
  });
  afterEach(() => conn.close());
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  const partition = {
    partition: 0,
    currentLeaderEpoch: -1,
    fetchOffset: 0n,
    lastFetchedEpoch: -1,
    logStartOffset: -1n,
    partitionMaxBytes: 1 << 20,
  };
  const fetch = (version: number, req: Partial<m.FetchRequest>): Promise<m.FetchResponse> =>
    conn.send(ApiKey.Fetch, version, {
      ...m.defaultFetchRequest(),
      maxWaitMs: FOREVER,
      minBytes: 1,
      maxBytes: 1 << 20,
      ...req,
    });

  it.each([4, 12, 16])('a fetch v%i naming no partition gets an empty answer', async (version) => {
    const res = await fetch(version, { topics: [] });
    expect(res).toMatchObject({ errorCode: ErrorCode.NONE, responses: [] });
    expect(broker.context.fetchWaiters.size).toBe(0);
  });

  it('a topic named with no partitions is no partition either', async () => {
    const res = await fetch(12, { topics: [{ topic: 'w', partitions: [] }] });
    expect(res.errorCode).toBe(ErrorCode.NONE);
  });

  it.each([
    [7, 1],
    [7, 5],
    [0, 3],
    [7, -2],
  ])(
    'an incremental fetch (session %i, epoch %i) gets FETCH_SESSION_ID_NOT_FOUND and no partitions',
    async (sessionId, sessionEpoch) => {
      const res = await fetch(12, { sessionId, sessionEpoch, topics: [{ topic: 'w', partitions: [partition] }] });
      expect(res).toMatchObject({
        throttleTimeMs: 0,
        errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
        sessionId: 0,
        responses: [],
      });
    },
  );

  it('a full fetch (epoch 0 or -1) with a session id is served without a session, as before', async () => {
    for (const sessionEpoch of [0, -1]) {
      const res = await fetch(12, {
        sessionId: 7,
        sessionEpoch,
        maxWaitMs: 0,
        topics: [{ topic: 'w', partitions: [partition] }],
      });
      expect(res).toMatchObject({ errorCode: ErrorCode.NONE, sessionId: 0 });
      expect(res.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    }
  });
});
