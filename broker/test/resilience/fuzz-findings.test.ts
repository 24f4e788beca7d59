// What the socket fuzz found (tools/resilience/fuzz-run.ts), each pinned as a regression test:
// answered as Kafka answers it, the connection kept, nothing logged at error level.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { MetadataResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { createLogger } from '../../src/logger';
import { startTestBroker } from '../integration/helpers';

describe('socket fuzz findings', () => {
  let broker: RunningBroker;
  const logged: { level: string; msg: string }[] = [];
  beforeAll(async () => {
    broker = await startTestBroker('memory://', {
      logger: createLogger('warn', (line) => logged.push(JSON.parse(line))),
    });
  });
  afterAll(() => broker.stop());

  // Seed 1, case 951: Metadata v10 naming a topic by id with a null name. Names are nullable in the
  // request from v10 but the response's Name only from v12, so the unknown-id answer (name null)
  // could not be encoded: the handler threw and the connection was closed with an error line.
  // Kafka refuses both before v12 (KafkaApis.handleTopicMetadataRequest: "Topic name can not be null
  // for version 10", "Topic IDs are not supported in requests for version 10") with
  // MetadataRequest.getErrorResponse: every topic INVALID_REQUEST, a null name sent as "".
  it.each([10, 11])(
    'Metadata v%i with a null topic name or a topic id: INVALID_REQUEST per topic, connection kept',
    async (v) => {
      const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
      try {
        const res: MetadataResponse = await conn.send(ApiKey.Metadata, v, {
          topics: [
            { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', name: null },
            { topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'named' },
          ],
          allowAutoTopicCreation: true,
          includeTopicAuthorizedOperations: false,
        });
        expect(
          res.topics.map((t) => ({ name: t.name, errorCode: t.errorCode, partitions: t.partitions.length })),
        ).toEqual([
          { name: '', errorCode: ErrorCode.INVALID_REQUEST, partitions: 0 },
          { name: 'named', errorCode: ErrorCode.INVALID_REQUEST, partitions: 0 },
        ]);
        expect(await broker.context.storage.topic('named')).toBeUndefined(); // refused: nothing auto-created
        // The connection still serves.
        const next: MetadataResponse = await conn.send(ApiKey.Metadata, v, {
          topics: null,
          allowAutoTopicCreation: false,
          includeTopicAuthorizedOperations: false,
        });
        expect(next.brokers.length).toBe(1);
        expect(logged.filter((l) => l.level === 'error')).toEqual([]);
      } finally {
        conn.close();
      }
    },
  );
});
