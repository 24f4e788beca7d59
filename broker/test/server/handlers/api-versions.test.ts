// ApiVersions v3+ names the client software; Kafka answers INVALID_REQUEST with no API list when
// a name or version breaks KIP-511's pattern (found by npm run compat against Kafka 4.1).
import { ApiKey } from '../../../src/protocol/api-keys';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { apiVersionsHandler } from '../../../src/server/handlers/api-versions';
import type { ApiHandler, RequestContext } from '../../../src/server/context';

const produce: ApiHandler = { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 11, handle: () => null };
const handlers = new Map<number, ApiHandler>([[ApiKey.Produce, produce]]);
const handler = apiVersionsHandler(handlers);
handlers.set(ApiKey.ApiVersions, handler);
const ctx = (apiVersion: number) => ({ apiKey: ApiKey.ApiVersions, apiVersion }) as RequestContext;

describe('ApiVersions client software check (KIP-511)', () => {
  it.each([
    ['apache-kafka-java', '3.9.0'],
    ['librdkafka', '2.3.0'],
    ['minnow', '0.1.0-dev'],
    ['x', '1'],
  ])('accepts %s %s', async (clientSoftwareName, clientSoftwareVersion) => {
    const res = (await handler.handle(ctx(3), { clientSoftwareName, clientSoftwareVersion }))!;
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.apiKeys.map((k: { apiKey: number }) => k.apiKey)).toEqual([ApiKey.Produce, ApiKey.ApiVersions]);
  });

  it.each([
    ['', ''],
    ['bad name!', '1'],
    ['kafkajs', '2.0.0+local'],
    ['-lead', '1'],
    ['trail.', '1'],
    ['ok', ''],
  ])('answers INVALID_REQUEST with no API list for %j %j', async (clientSoftwareName, clientSoftwareVersion) => {
    const res = (await handler.handle(ctx(3), { clientSoftwareName, clientSoftwareVersion }))!;
    expect(res).toEqual({ errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 });
  });

  it('does not check before v3, where the fields do not exist', async () => {
    const res = (await handler.handle(ctx(2), { clientSoftwareName: '', clientSoftwareVersion: '' }))!;
    expect(res.errorCode).toBe(ErrorCode.NONE);
  });
});
