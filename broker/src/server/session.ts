// Who is on the other end of a connection and how it reached us: what the SASL exchange sets, and
// what the authorizer (ACLs) and the quotas read. One per connection; handlers see it as
// `ctx.session`. Names follow Kafka's (KafkaPrincipal, SecurityProtocol, ListenerName).

/** Kafka's security protocols; a listener URL's scheme says which (tcp, tls, sasl+tcp, sasl+tls). */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** Kafka's KafkaPrincipal: `User:alice`, `User:ANONYMOUS`, `User:CN=client,O=acme` (mTLS). */
export interface KafkaPrincipal {
  principalType: string;
  name: string;
}

/** The principal of a connection nobody has authenticated (Kafka's KafkaPrincipal.ANONYMOUS). */
export const ANONYMOUS: KafkaPrincipal = Object.freeze({ principalType: 'User', name: 'ANONYMOUS' });

/** `User:alice`, as ACLs, SUPER_USERS and Kafka's tools write a principal. */
export function principalToString(p: KafkaPrincipal): string {
  return `${p.principalType}:${p.name}`;
}

/** The listener a connection arrived on. */
export interface ListenerInfo {
  /** Kafka's listener name; minnow names a listener after its security protocol (e.g. "SASL_SSL"). */
  name: string;
  securityProtocol: SecurityProtocol;
}

/** A plaintext listener: what every connection was before listeners had a scheme. */
export const PLAINTEXT_LISTENER: ListenerInfo = Object.freeze({ name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' });

export interface Session {
  /** ANONYMOUS until SASL (or an mTLS client certificate) says otherwise. */
  principal: KafkaPrincipal;
  listener: ListenerInfo;
  /** The client's IP address (IPv4-mapped IPv6 unwrapped), for ACL hosts and per-IP limits. */
  clientAddress: string;
}

export function newSession(listener: ListenerInfo, remoteAddress: string | undefined): Session {
  return {
    principal: ANONYMOUS,
    listener,
    clientAddress: (remoteAddress ?? '').replace(/^::ffff:/, ''),
  };
}
