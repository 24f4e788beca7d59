// What a request for an API minnow does not serve gets: the API's response at the version asked,
// every field at its spec default (empty arrays, no records) and UNSUPPORTED_VERSION in the
// top-level ErrorCode where the response has one. The client reads an answer it can decode and
// reports the API as unsupported, instead of seeing the connection drop (kafka-go's admin calls
// reported "unexpected EOF"; librdkafka and the Java client take a drop for a dead broker). Such
// a request is never advertised in ApiVersions, so only a client that skips that check sends one.
// Kafka's broker answers every API it serves; minnow answers every API of Kafka's specs: a key no
// spec has (999) or a version outside the spec still closes the connection, as in Kafka.
import { ErrorCode } from '../protocol/error-codes';
import type { ApiSpec } from '../protocol/messages/registry';

/** CreateTopics -> create-topics, the generated module's file name (scripts/protocol-spec.ts kebab). */
const moduleName = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/**
 * The body to send for `spec` at `version` when no handler serves it; null when the version is not
 * one of the spec's (the connection closes then).
 */
export function unservedAnswer(spec: ApiSpec, version: number): Record<string, unknown> | null {
  if (version < spec.minVersion || version > spec.maxVersion) return null;
  // Loaded on first use only, as the registry does: a broker keeps the codecs of the APIs it serves.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is chosen by the API's name
  const m = require(`../protocol/messages/${moduleName(spec.name)}`) as Record<string, unknown>;
  const makeDefault = m[`default${spec.name}Response`] as (() => Record<string, unknown>) | undefined;
  if (!makeDefault) return null;
  const body = makeDefault();
  if ('errorCode' in body) body.errorCode = ErrorCode.UNSUPPORTED_VERSION;
  if ('errorMessage' in body) body.errorMessage = `minnow does not serve ${spec.name} (key ${spec.apiKey})`;
  return body;
}
