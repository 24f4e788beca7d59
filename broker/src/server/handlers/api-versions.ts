// ApiVersions (key 18): v0-4. v3+ is flexible but its response header stays v0 (KIP-511); a
// request newer than v4 gets error 35 with our ranges in a v0 body (see request-routing.ts). v3+ also
// carries the feature flags (features.ts): transaction.version, which Java 4.x producers read to
// choose KIP-890 part 2.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ApiVersionsRequest, ApiVersionsResponse } from '../../protocol/messages';
import type { ApiHandler, BrokerContext } from '../context';
import { featureFields, FeatureLevels, MAX_TRANSACTION_VERSION } from '../features';

export function apiVersionsBody(handlers: ReadonlyMap<number, ApiHandler>): ApiVersionsResponse {
  const apiKeys = [...handlers.values()]
    .sort((a, b) => a.apiKey - b.apiKey)
    .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
  return { errorCode: ErrorCode.NONE, apiKeys, throttleTimeMs: 0 };
}

/** KIP-511: what a client software name or version may look like (Kafka's ApiVersionsRequest.isValid). */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

function featureLevels(broker: BrokerContext): FeatureLevels {
  return (
    broker.features ?? { transactionVersion: broker.config?.transactionVersion ?? MAX_TRANSACTION_VERSION, epoch: 0 }
  );
}

export function apiVersionsHandler(
  handlers: ReadonlyMap<number, ApiHandler>,
): ApiHandler<ApiVersionsRequest, ApiVersionsResponse> {
  return {
    apiKey: ApiKey.ApiVersions,
    minVersion: 0,
    maxVersion: 4,
    handle: (ctx, req) => {
      // Kafka answers a v3+ request with a malformed name or version INVALID_REQUEST and no API list.
      const valid =
        ctx.apiVersion < 3 ||
        (SOFTWARE_NAME_VERSION.test(req.clientSoftwareName ?? '') &&
          SOFTWARE_NAME_VERSION.test(req.clientSoftwareVersion ?? ''));
      return valid
        ? { ...apiVersionsBody(handlers), ...featureFields(featureLevels(ctx.broker), ctx.apiVersion) }
        : { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
    },
  };
}
