// A handler that throws gets its API's error answer on an open connection (server/error-answers,
// as Kafka's KafkaApis.handleError), logged once per burst: a StorageError a retriable code, any
// other exception UNKNOWN_SERVER_ERROR. The failures are injected into a memory:// broker's storage.
import { KafkaConnection } from '../../src/client/connection';
import { createLogger } from '../../src/logger';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { StorageError } from '../../src/storage/storage';
import { startTestBroker } from './helpers';

describe('a handler that throws', () => {
  let broker: RunningBroker;
  const lines: string[] = [];
  let failWith: Error | undefined;

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { logger: createLogger('warn', (l) => lines.push(l)) });
    await broker.context.storage.createTopic('t', 1, {});
    const storage = broker.context.storage as { topic: (name: string) => Promise<unknown> };
    const topic = storage.topic.bind(storage);
    storage.topic = (name) => (failWith ? Promise.reject(failWith) : topic(name));
  });
  afterAll(async () => {
    await broker?.stop();
  });

  const metadata = (conn: KafkaConnection) =>
    conn.send(ApiKey.Metadata, 12, {
      topics: [{ name: 't', topicId: ZERO_UUID }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });

  it.each([
    ['a StorageError', new StorageError('connection refused', { code: '08006' }), ErrorCode.LEADER_NOT_AVAILABLE],
    ['any other exception', new Error('a bug'), ErrorCode.UNKNOWN_SERVER_ERROR],
  ])('%s: every request answered with the code, the connection stays open, one log line', async (_n, err, code) => {
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    lines.length = 0;
    failWith = err;
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => metadata(conn)));
      expect(
        answers.map((a) => a.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])),
      ).toEqual(Array(20).fill([['t', code]]));
    } finally {
      failWith = undefined;
    }
    expect((await metadata(conn)).topics[0].errorCode).toBe(ErrorCode.NONE);
    conn.close();
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ api: 'Metadata', errorCode: code });
  });
});
