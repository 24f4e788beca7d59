// ConsumerGroupHeartbeat (KIP-848) is advertised and refused with UNSUPPORTED_VERSION, as Kafka 4.x
// does while the consumer protocol is disabled, so clients that opt into it fail loudly.
// confluent-kafka-pypi.test.ts shows librdkafka's side.
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages';
import { Reader } from '../../src/protocol/reader';
import { Writer } from '../../src/protocol/writer';
import { newSession, PLAINTEXT_LISTENER } from '../../src/server/session';
import type { BrokerContext, RequestContext } from '../../src/server/context';
import { apiVersionsBody } from '../../src/server/handlers/api-versions';
import { CONSUMER_PROTOCOL_UNSUPPORTED } from '../../src/server/handlers/consumer-group-heartbeat';
import { createHandlers } from '../../src/server/handlers';

const handlers = createHandlers();

it('advertises ConsumerGroupHeartbeat v0-1 in ApiVersions, as Kafka 4.x does', () => {
  expect(apiVersionsBody(handlers).apiKeys).toContainEqual({
    apiKey: ApiKey.ConsumerGroupHeartbeat,
    minVersion: 0,
    maxVersion: 1,
  });
});

it.each([0, 1])(
  'answers a joining v%i heartbeat with UNSUPPORTED_VERSION and says to use group.protocol=classic',
  async (version) => {
    const spec = API_SPEC_BY_KEY.get(ApiKey.ConsumerGroupHeartbeat)!;
    const join = {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['t'],
      serverAssignor: null,
      topicPartitions: [],
    };
    const rw = new Writer();
    spec.encodeRequest(rw, version, join);
    const req = spec.decodeRequest(new Reader(rw.toBuffer()), version);
    const ctx = {
      broker: {} as BrokerContext,
      apiKey: ApiKey.ConsumerGroupHeartbeat,
      apiVersion: version,
      correlationId: 1,
      clientId: 'c',
      connectionId: 1,
      clientHost: '/127.0.0.1',
      session: newSession(PLAINTEXT_LISTENER, '127.0.0.1'),
    } as RequestContext;
    const body = await handlers.get(ApiKey.ConsumerGroupHeartbeat)!.handle(ctx, req);
    const w = new Writer();
    spec.encodeResponse(w, version, body);
    const res = spec.decodeResponse(new Reader(w.toBuffer()), version);
    expect(res).toMatchObject({
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      errorMessage: CONSUMER_PROTOCOL_UNSUPPORTED,
      memberId: null,
      assignment: null,
    });
    expect(CONSUMER_PROTOCOL_UNSUPPORTED).toMatch(/group\.protocol=classic/);
  },
);
