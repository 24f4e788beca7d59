// MINNOW_METRICS_LISTENER: where the Prometheus endpoint listens, HOST:PORT. A port of its own,
// never one of the Kafka listeners: a scraper speaks HTTP, a Kafka client the Kafka protocol.
import type { Endpoint } from '../listeners';

export const METRICS_LISTENER_FORM =
  'HOST:PORT, e.g. 127.0.0.1:9464 (this host only) or 0.0.0.0:9464 (every interface); [::1]:9464 for IPv6';

/** `127.0.0.1:9464` -> { host, port }; undefined if malformed. Port 0 (tests) binds any free port. */
export function parseMetricsListener(value: string): Endpoint | undefined {
  const m = /^(\[[^\]]+\]|[^:/[\]\s]+):(\d{1,5})$/.exec(value.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

const WILDCARDS = new Set(['0.0.0.0', '::']);

/**
 * Whether binding `a` and `b` at once would fight for one port: same port (not 0), and the same
 * host or either a wildcard (0.0.0.0 takes the port on every IPv4 address; :: usually on both).
 */
export function sharesPort(a: Endpoint, b: Endpoint): boolean {
  if (a.port === 0 || a.port !== b.port) return false;
  return a.host === b.host || WILDCARDS.has(a.host) || WILDCARDS.has(b.host);
}
