// Every API key of Kafka's specs, at each of its versions, gets an answer the client can decode,
// and the connection stays open: served APIs answer as their handler does, the others with
// UNSUPPORTED_VERSION (server/unserved-answers.ts). Before, an API minnow did not serve closed the
// connection (kafka-go's AlterPartitionReassignments saw "unexpected EOF"). Each request is the
// spec's default body (Produce with acks=-1: acks=0 is answered with nothing, by design). A key
// no spec has still closes the connection (connection-limits.test.ts).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import { API_SPECS } from '../../src/protocol/messages/registry';
import type { RunningBroker } from '../../src/server/broker';
import { createHandlers } from '../../src/server/handlers';
import { startTestBroker, tempDir } from './helpers';

const body = (name: string, apiKey: number): unknown => {
  const make = (m as unknown as Record<string, () => Record<string, unknown>>)[`default${name}Request`]!;
  const b = make();
  if (apiKey === ApiKey.Produce) b.acks = -1;
  return b;
};

describe('every API of the specs is answered', () => {
  let broker: RunningBroker;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${tmp.dir}/every-api.db`);
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('answers each key at each version without closing the connection', async () => {
    const served = createHandlers();
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port, { requestTimeoutMs: 10_000 });
    const closed: string[] = [];
    const unsupported: string[] = [];
    let answered = 0;
    try {
      for (const spec of API_SPECS) {
        const h = served.get(spec.apiKey);
        const [from, to] = h ? [h.minVersion, h.maxVersion] : [spec.minVersion, spec.maxVersion];
        for (let v = from; v <= to; v++) {
          try {
            const res = await conn.send(spec.apiKey, v, body(spec.name, spec.apiKey));
            answered++;
            if (!h) {
              if ('errorCode' in res && res.errorCode !== ErrorCode.UNSUPPORTED_VERSION)
                unsupported.push(`${spec.name} v${v}: errorCode ${res.errorCode}`);
            }
          } catch (err) {
            closed.push(`${spec.name} v${v}: ${(err as Error).message}`);
            break;
          }
        }
      }
      // The connection still serves after all of them.
      const versions = await conn.send(ApiKey.ApiVersions, 0, {});
      expect(versions.errorCode).toBe(ErrorCode.NONE);
    } finally {
      conn.close();
    }
    expect(closed).toEqual([]);
    expect(unsupported).toEqual([]);
    expect(answered).toBeGreaterThan(API_SPECS.length);
  }, 120_000);
});
