// ApiVersions v3+ names the client software; Kafka answers INVALID_REQUEST with no API list when
// a name or version breaks KIP-511's pattern (found by npm run compat against Kafka 4.1). v3+ also
// reports the transaction.version feature (features.ts), which Java 4.x producers read.
import { ApiKey } from '../../../src/protocol/api-keys';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { apiVersionsHandler } from '../../../src/server/handlers/api-versions';
import type { ApiHandler, BrokerContext, RequestContext } from '../../../src/server/context';
import type { FeatureLevels } from '../../../src/server/features';

const produce: ApiHandler = { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 11, handle: () => null };
const handlers = new Map<number, ApiHandler>([[ApiKey.Produce, produce]]);
const handler = apiVersionsHandler(handlers);
handlers.set(ApiKey.ApiVersions, handler);
const ctx = (apiVersion: number, features: FeatureLevels = { transactionVersion: 2, epoch: 7 }) =>
  ({ apiKey: ApiKey.ApiVersions, apiVersion, broker: { features } as BrokerContext }) as RequestContext;

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

describe('ApiVersions feature flags (KIP-584)', () => {
  const versions = { clientSoftwareName: 'x', clientSoftwareVersion: '1' };

  it('v4 reports transaction.version supported 0-2 and finalized at the configured level', async () => {
    const res = (await handler.handle(ctx(4), versions))!;
    expect(res).toMatchObject({
      supportedFeatures: [{ name: 'transaction.version', minVersion: 0, maxVersion: 2 }],
      finalizedFeaturesEpoch: 7n,
      finalizedFeatures: [{ name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 }],
    });
  });

  it('v3 omits supported features whose minimum is 0 (KAFKA-17011), as Kafka does', async () => {
    const res = (await handler.handle(ctx(3), versions))!;
    expect(res.supportedFeatures).toEqual([]);
    expect(res.finalizedFeatures).toEqual([{ name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 }]);
  });

  it('a level of 0 is not finalized (a Java 4.x producer then uses transaction version 1)', async () => {
    const res = (await handler.handle(ctx(4, { transactionVersion: 0, epoch: 7 }), versions))!;
    expect(res.finalizedFeatures).toEqual([]);
    expect(res.finalizedFeaturesEpoch).toBe(7n);
  });

  it('v0-2 carry no features', async () => {
    const res = (await handler.handle(ctx(2), {}))!;
    expect(res.supportedFeatures).toBeUndefined();
    expect(res.finalizedFeatures).toBeUndefined();
  });
});
