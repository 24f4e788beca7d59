// What one answered request costs against its client's quotas and how long the client is then
// throttled, as KafkaApis does it: Produce counts its request bytes (KIP-13) and, unless acks=0,
// its handler time (KIP-124); Fetch counts its response bytes and handler time, and a throttled
// fetch answers empty (its bytes taken back); every other API counts handler time only. The
// throttle goes into the response's throttle_time_ms, and the connection is muted for it (KIP-219).
import { ApiKey } from '../../protocol/api-keys';
import type { BrokerQuotas } from './broker-quotas';

export interface RequestCost {
  apiKey: number;
  /** The principal's name ("alice", "ANONYMOUS"): what user entities name. */
  user: string;
  clientId: string;
  /** Size of the request frame. */
  requestBytes: number;
  /** Size of the encoded response (0 when none is sent). */
  responseBytes: number;
  /** Time the broker spent on the request itself (not waiting), in ms. */
  handlerMs: number;
  /** Produce with acks=0: exempt from the request-time quota. */
  noResponse: boolean;
}

export interface Throttle {
  throttleMs: number;
  /** A throttled fetch: answer it with no data (FetchContext.getThrottledResponse). */
  emptyFetch: boolean;
}

const NOT_THROTTLED: Throttle = { throttleMs: 0, emptyFetch: false };

/** Percent of one second (ClientRequestQuotaManager.nanosToPercentage, from ms). */
const msToPercentage = (ms: number) => ms / 10;

export function recordRequest(quotas: BrokerQuotas, c: RequestCost, nowMs: number): Throttle {
  const percent = msToPercentage(c.handlerMs);
  if (c.apiKey === ApiKey.Produce) {
    const bandwidth = quotas.produce.recordAndGetThrottleTimeMs(c.user, c.clientId, c.requestBytes, nowMs);
    const request = c.noResponse ? 0 : quotas.request.recordAndGetThrottleTimeMs(c.user, c.clientId, percent, nowMs);
    const throttleMs = Math.max(bandwidth, request);
    return throttleMs === 0 ? NOT_THROTTLED : { throttleMs, emptyFetch: false };
  }
  if (c.apiKey === ApiKey.Fetch) {
    const request = quotas.request.recordAndGetThrottleTimeMs(c.user, c.clientId, percent, nowMs);
    const bandwidth = quotas.fetch.recordAndGetThrottleTimeMs(c.user, c.clientId, c.responseBytes, nowMs);
    const throttleMs = Math.max(bandwidth, request);
    if (throttleMs === 0) return NOT_THROTTLED;
    // Even when throttled for request time, the bytes are taken back: the answer carries none.
    quotas.fetch.unrecord(c.user, c.clientId, c.responseBytes, nowMs);
    return { throttleMs, emptyFetch: true };
  }
  const throttleMs = quotas.request.recordAndGetThrottleTimeMs(c.user, c.clientId, percent, nowMs);
  return throttleMs === 0 ? NOT_THROTTLED : { throttleMs, emptyFetch: false };
}

/** The response body with the throttle time in it (and, for a throttled fetch, no partitions). */
export function throttledBody(body: unknown, t: Throttle): unknown {
  const b = body as Record<string, unknown>;
  if (t.emptyFetch) return { ...b, throttleTimeMs: t.throttleMs, errorCode: 0, responses: [] };
  const prior = typeof b.throttleTimeMs === 'number' ? b.throttleTimeMs : 0;
  return { ...b, throttleTimeMs: Math.max(prior, t.throttleMs) };
}
