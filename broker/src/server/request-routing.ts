// Which way a request goes once its header's key and version are read: to its handler, answered
// at once with UNSUPPORTED_VERSION (a client newer than us, or an API minnow does not serve), or
// refused by closing the connection (a key or version no spec knows), as Kafka does.
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode } from '../protocol/error-codes';
import { DecodeError } from '../protocol/errors';
import { API_SPEC_BY_KEY, ApiSpec } from '../protocol/messages/registry';
import type { ApiHandler } from './context';
import { apiVersionsBody } from './handlers/api-versions';
import { unservedAnswer } from './unserved-answers';

export type RequestRoute =
  | { to: 'handler'; handler: ApiHandler; spec: ApiSpec }
  /** Answered at once, with this body at this version: the request's error is UNSUPPORTED_VERSION. */
  | { to: 'answer'; apiVersion: number; body: unknown }
  /** Closes the connection: `why` and `err` are logged. */
  | { to: 'close'; why: string; err: DecodeError };

export function routeRequest(
  handlers: ReadonlyMap<number, ApiHandler>,
  apiKey: number,
  apiVersion: number,
): RequestRoute {
  const handler = handlers.get(apiKey);
  const spec = API_SPEC_BY_KEY.get(apiKey);
  if (apiKey === ApiKey.ApiVersions && handler && apiVersion > handler.maxVersion) {
    // KIP-511: a client newer than us gets error 35 and, like Kafka, only the ApiVersions range
    // in a v0 body: enough to retry with a version we know.
    const own = apiVersionsBody(handlers).apiKeys.filter((k) => k.apiKey === ApiKey.ApiVersions);
    return {
      to: 'answer',
      apiVersion: 0,
      body: { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: own, throttleTimeMs: 0 },
    };
  }
  const unserved = !handler && spec ? unservedAnswer(spec, apiVersion) : null;
  if (unserved) return { to: 'answer', apiVersion, body: unserved };
  if (!handler || !spec)
    return { to: 'close', why: 'unsupported API key', err: new DecodeError(`API key ${apiKey} is not supported`) };
  if (apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
    const supported = `${handler.minVersion}-${handler.maxVersion}`;
    const err = new DecodeError(`${spec.name} v${apiVersion} is not supported (${supported})`);
    return { to: 'close', why: 'unsupported API version', err };
  }
  return { to: 'handler', handler, spec };
}
