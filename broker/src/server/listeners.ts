// Listeners: LISTENER_URL is a comma-separated list whose scheme says Kafka's security protocol
// (tcp:// PLAINTEXT, tls:// SSL, sasl+tcp:// SASL_PLAINTEXT, sasl+tls:// SASL_SSL), e.g.
// `sasl+tls://0.0.0.0:9093,tcp://127.0.0.1:9092`. ADVERTISED_LISTENER_URL is matched by position;
// a listener without one advertises its own address (127.0.0.1 for a wildcard). Clients are told
// the advertised address of the listener their request came in on, as Kafka answers Metadata with
// the endpoints of the request's listener name.
import type { ListenerInfo, SecurityProtocol } from './session';

export interface Endpoint {
  host: string;
  port: number;
}

/** One listener as configured: where it binds and what it speaks. */
export interface ListenerConfig extends Endpoint {
  securityProtocol: SecurityProtocol;
}

/** A listener with its Kafka name and the address clients are told (port 0 resolved once bound). */
export interface ResolvedListener extends ListenerInfo {
  host: string;
  port: number;
  advertised: Endpoint;
}

const SCHEMES: Record<string, SecurityProtocol> = {
  tcp: 'PLAINTEXT',
  kafka: 'PLAINTEXT',
  plaintext: 'PLAINTEXT',
  tls: 'SSL',
  ssl: 'SSL',
  'sasl+tcp': 'SASL_PLAINTEXT',
  sasl_plaintext: 'SASL_PLAINTEXT',
  'sasl+tls': 'SASL_SSL',
  sasl_ssl: 'SASL_SSL',
};

/** SSL and SASL_SSL listeners speak TLS. */
export const usesTls = (p: SecurityProtocol): boolean => p === 'SSL' || p === 'SASL_SSL';
/** SASL_PLAINTEXT and SASL_SSL listeners ask for a SASL login. */
export const usesSasl = (p: SecurityProtocol): boolean => p === 'SASL_PLAINTEXT' || p === 'SASL_SSL';

export const LISTENER_URL_FORM =
  'a comma-separated list of SCHEME://HOST:PORT, SCHEME one of tcp, tls, sasl+tcp, sasl+tls';

/** `tls://0.0.0.0:9093` -> { host, port, securityProtocol: 'SSL' }; undefined if malformed. */
export function parseListenerUrl(value: string): ListenerConfig | undefined {
  const m = /^([a-z+_]+):\/\/(\[[^\]]+\]|[^:/[\]]+):(\d{1,5})\/?$/i.exec(value.trim());
  if (!m) return undefined;
  const securityProtocol = SCHEMES[m[1]!.toLowerCase()];
  const port = Number(m[3]);
  if (!securityProtocol || port > 65535) return undefined;
  return { host: m[2]!.replace(/^\[|\]$/g, ''), port, securityProtocol };
}

/** The whole list; undefined if any entry is malformed or two bind the same address. */
export function parseListenerList(value: string): ListenerConfig[] | undefined {
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) return undefined;
  const out: ListenerConfig[] = [];
  for (const item of items) {
    const l = parseListenerUrl(item);
    if (!l) return undefined;
    // Port 0 (tests: any free port) may repeat; a fixed host:port could only be bound once.
    if (l.port !== 0 && out.some((o) => o.host === l.host && o.port === l.port)) return undefined;
    out.push(l);
  }
  return out;
}

/** A plaintext listener (tests and `startBroker` callers that only need an address). */
export function plaintextListener(host: string, port: number): ListenerConfig {
  return { host, port, securityProtocol: 'PLAINTEXT' };
}

/**
 * Without an advertised address clients are told the listener's, with 127.0.0.1 for a wildcard:
 * not localhost, since Node 17+ may resolve it to ::1 first and kafkajs does not fall back to
 * IPv4. Remote clients need ADVERTISED_LISTENER_URL anyway.
 */
export function defaultAdvertised(listener: Endpoint): Endpoint {
  const wildcard = listener.host === '0.0.0.0' || listener.host === '::';
  return { host: wildcard ? '127.0.0.1' : listener.host, port: listener.port };
}

/**
 * Names each listener after its protocol (Kafka's listener names must differ, so a second listener
 * of one protocol is PLAINTEXT_2, ...) and pairs it with its advertised address by position.
 * Throws an Error saying what is wrong (more advertised addresses than listeners, or an advertised
 * scheme that says another protocol than its listener's).
 */
export function resolveListeners(
  listeners: readonly ListenerConfig[],
  advertised: readonly ListenerConfig[] | undefined,
): ResolvedListener[] {
  if (listeners.length === 0) throw new Error('LISTENER_URL names no listener: give at least one tcp://HOST:PORT');
  if (advertised && advertised.length > listeners.length) {
    throw new Error(
      `ADVERTISED_LISTENER_URL has ${advertised.length} addresses for ${listeners.length} listener(s): they are matched by position; give at most one per LISTENER_URL entry`,
    );
  }
  const seen = new Map<SecurityProtocol, number>();
  return listeners.map((l, i) => {
    const n = (seen.get(l.securityProtocol) ?? 0) + 1;
    seen.set(l.securityProtocol, n);
    const a = advertised?.[i];
    // tcp:// is accepted for any listener (Tansu's compose files advertise tcp://); another scheme must agree.
    if (a && a.securityProtocol !== 'PLAINTEXT' && a.securityProtocol !== l.securityProtocol) {
      throw new Error(
        `ADVERTISED_LISTENER_URL entry ${i + 1} says ${a.securityProtocol} but LISTENER_URL entry ${i + 1} is ${l.securityProtocol}: they are matched by position`,
      );
    }
    return {
      name: n === 1 ? l.securityProtocol : `${l.securityProtocol}_${n}`,
      securityProtocol: l.securityProtocol,
      host: l.host,
      port: l.port,
      advertised: a ? { host: a.host, port: a.port } : defaultAdvertised(l),
    };
  });
}

/** `SASL_SSL=0.0.0.0:9093,PLAINTEXT=127.0.0.1:9092`: how the start-up log and errors name listeners. */
export function describeListeners(listeners: readonly { name: string; host: string; port: number }[]): string {
  return listeners.map((l) => `${l.name}=${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`).join(',');
}
