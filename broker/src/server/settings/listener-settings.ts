// Where the broker listens and what clients are told (server/listeners.ts).
import { LISTENER_URL_FORM, ListenerConfig, parseListenerList } from '../listeners';
import type { Setting } from './setting';

export interface ListenerSettings {
  /** Where the broker listens and with which security protocol (listeners.ts). */
  listeners: ListenerConfig[];
  /** What clients are told, by position in `listeners` (undefined: each listener's own address). */
  advertisedListeners: ListenerConfig[] | undefined;
}

export const LISTENER_SETTINGS = [
  {
    key: 'listeners',
    env: 'LISTENER_URL',
    flag: 'listener',
    doc: 'addresses the broker listens on; the scheme is the security protocol: tcp:// PLAINTEXT, tls:// SSL, sasl+tcp:// SASL_PLAINTEXT, sasl+tls:// SASL_SSL',
    default: 'tcp://0.0.0.0:9092',
    expected: LISTENER_URL_FORM,
    parse: parseListenerList,
  },
  {
    key: 'advertisedListeners',
    env: 'ADVERTISED_LISTENER_URL',
    flag: 'advertised-listener',
    doc: 'addresses returned to clients in Metadata, by position in the listener list (default: each listener, with 127.0.0.1 for 0.0.0.0)',
    default: undefined,
    expected: LISTENER_URL_FORM,
    parse: parseListenerList,
  },
] as const satisfies readonly Setting<ListenerSettings>[];
