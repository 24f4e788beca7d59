// The sasl+ listeners' logins (server/sasl/): mechanisms, sessions, failed-login delays, the
// bootstrap admin.
import { int, nonEmpty, Setting } from './setting';

export interface SaslSettings {
  /** SASL mechanisms the sasl+ listeners offer, in SaslHandshake's order (Kafka's sasl.enabled.mechanisms). */
  saslMechanisms: string[];
  /** KIP-368 session lifetime on sasl+ listeners; 0: sessions never expire (connections.max.reauth.ms). */
  connectionsMaxReauthMs: number;
  /** A failed authentication is answered (and its connection closed) this much later (connection.failed.authentication.delay.ms). */
  connectionFailedAuthenticationDelayMs: number;
  /** The longest a failed login is answered after (the delay doubles per failure of an address and user). */
  saslFailedLoginMaxDelayMs: number;
  /** Connections of sasl+ listeners from one address not (yet) logged in, or failed and within their delay. */
  maxUnauthenticatedConnectionsPerIp: number;
  /** Deprecated (MINNOW_SASL_MAX_FAILURES_PER_ADDRESS): accepted, no effect; the broker warns when it is set. */
  saslMaxFailuresPerAddress: number | undefined;
  /** The SCRAM user created at start from adminPasswordFile when it does not exist. */
  adminUser: string;
  /** A file holding the bootstrap admin's password (first line); undefined: no bootstrap user. */
  adminPasswordFile: string | undefined;
}

export const SASL_SETTINGS = [
  // SASL (server/sasl/, issue 13): Kafka's names where Kafka has the setting.
  {
    key: 'saslMechanisms',
    env: 'SASL_MECHANISMS',
    flag: 'sasl-mechanisms',
    doc: "SASL mechanisms the sasl+tcp:// and sasl+tls:// listeners offer (Kafka's sasl.enabled.mechanisms)",
    default: 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    expected: 'a comma-separated list of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512',
    parse: (v: string) => {
      const list = v.split(',').map((m) => m.trim().toUpperCase());
      const known = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];
      return list.length > 0 && list.every((m) => known.includes(m)) && new Set(list).size === list.length
        ? list
        : undefined;
    },
  },
  {
    key: 'connectionsMaxReauthMs',
    env: 'CONNECTIONS_MAX_REAUTH_MS',
    flag: 'connections-max-reauth-ms',
    doc: 'SASL sessions last this long; then the client must re-authenticate on the connection or be disconnected (KIP-368 connections.max.reauth.ms); 0: never',
    default: '0',
    expected: 'an integer 0..2147483647 (ms)',
    parse: int(0, 2 ** 31 - 1),
  },
  {
    key: 'connectionFailedAuthenticationDelayMs',
    env: 'CONNECTION_FAILED_AUTHENTICATION_DELAY_MS',
    flag: 'connection-failed-authentication-delay-ms',
    doc: "a failed SASL authentication is answered, and its connection closed, this much later (connection.failed.authentication.delay.ms; Kafka's default); further failures of the same address and user wait longer (MINNOW_SASL_FAILED_LOGIN_MAX_DELAY_MS); 0: no delay at all",
    default: '100',
    expected: 'an integer 0..60000 (ms)',
    parse: int(0, 60_000),
  },
  {
    key: 'saslFailedLoginMaxDelayMs',
    env: 'MINNOW_SASL_FAILED_LOGIN_MAX_DELAY_MS',
    flag: 'sasl-failed-login-max-delay-ms',
    doc: 'a failed SASL login waits CONNECTION_FAILED_AUTHENTICATION_DELAY_MS, doubled for each earlier failure of the same client address and user in the last 10 minutes, up to this; a correct password is never delayed, and other users from the address are not slowed',
    default: '5000',
    expected: 'an integer 0..60000 (ms)',
    parse: int(0, 60_000),
  },
  {
    key: 'maxUnauthenticatedConnectionsPerIp',
    env: 'MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP',
    flag: 'max-unauthenticated-connections-per-ip',
    doc: 'connections of sasl+ listeners from one IP address that have not logged in yet (a failed one counts until its delay is over, even if the client hung up); further ones are closed on arrival, logged and counted (minnow_sasl_connections_refused_total)',
    default: '32',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'saslMaxFailuresPerAddress',
    env: 'MINNOW_SASL_MAX_FAILURES_PER_ADDRESS',
    flag: 'sasl-max-failures-per-address',
    doc: 'deprecated, no effect (accepted so existing settings still start; the broker logs a warning): failed logins no longer lock an address out, they are delayed (MINNOW_SASL_FAILED_LOGIN_MAX_DELAY_MS)',
    default: undefined,
    expected: 'an integer 0..1000000',
    parse: int(0, 1_000_000),
  },
  {
    key: 'adminUser',
    env: 'MINNOW_ADMIN_USER',
    flag: 'admin-user',
    doc: 'the SCRAM user (SCRAM-SHA-256 and -512) created at start from MINNOW_ADMIN_PASSWORD_FILE if it does not exist',
    default: 'admin',
    expected: 'a user name (not empty)',
    parse: nonEmpty,
  },
  {
    key: 'adminPasswordFile',
    env: 'MINNOW_ADMIN_PASSWORD_FILE',
    flag: 'admin-password-file',
    doc: "a file whose first line is the bootstrap admin's password (never logged); unset: no user is created",
    default: undefined,
    expected: 'a file path',
    parse: nonEmpty,
  },
] as const satisfies readonly Setting<SaslSettings>[];
