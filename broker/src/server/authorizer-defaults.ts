// The default of ALLOW_EVERYONE_IF_NO_ACL_FOUND, in one place so the listener work merges here.
// Kafka's default is false, which would shut every client out of a broker nobody can log in to:
// `npm start` (plaintext, everyone ANONYMOUS) stays an open dev broker, and a broker that
// authenticates its clients (a sasl+ listener, or TLS client certificates required) is closed
// until ACLs open it. An explicit setting always wins.
import type { BrokerConfig } from './config';
import { usesSasl } from './listeners';
import type { SecurityProtocol } from './session';

/** What this decision reads of the listener settings, which may not exist yet (the listener list). */
interface ListenerSettings {
  listeners?: readonly { securityProtocol: SecurityProtocol }[];
  tlsClientAuth?: string;
}

/** True while no listener authenticates anyone. */
export function defaultAllowEveryoneIfNoAclFound(config: BrokerConfig): boolean {
  const { listeners = [], tlsClientAuth } = config as BrokerConfig & ListenerSettings;
  const sasl = listeners.some((l) => usesSasl(l.securityProtocol));
  return !sasl && tlsClientAuth !== 'required';
}

export function allowEveryoneIfNoAclFound(config: BrokerConfig): boolean {
  return config.allowEveryoneIfNoAclFound ?? defaultAllowEveryoneIfNoAclFound(config);
}
