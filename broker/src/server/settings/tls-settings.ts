// The TLS listeners' certificate, key and client authentication (server/tls-material.ts).
import { TLS_CLIENT_AUTH_VALUES, TlsClientAuth } from '../tls-material';
import { int, nonEmpty, Setting } from './setting';

export interface TlsSettings {
  /** PEM certificate (chain) the TLS listeners present (ssl.keystore.location). */
  tlsCertFile: string | undefined;
  /** PEM private key of tlsCertFile. */
  tlsKeyFile: string | undefined;
  /** File whose first line is the password of an encrypted tlsKeyFile (ssl.key.password). */
  tlsKeyPasswordFile: string | undefined;
  /** PEM CA certificates client certificates must chain to (ssl.truststore.location). */
  tlsCaFile: string | undefined;
  /** Whether TLS listeners ask clients for a certificate (ssl.client.auth). */
  tlsClientAuth: TlsClientAuth;
  /** How often the TLS files are checked for a renewal (0: only on SIGHUP). */
  tlsReloadIntervalMs: number;
}

export const TLS_SETTINGS = [
  // TLS listeners (issue 13, server/tls-material.ts). Kafka keeps keys in keystores
  // (ssl.keystore.location); minnow reads the PEM files every other TLS server reads.
  {
    key: 'tlsCertFile',
    env: 'TLS_CERT_FILE',
    flag: 'tls-cert-file',
    doc: 'PEM certificate the tls:// and sasl+tls:// listeners present; intermediate CA certificates may follow it. Renewals are picked up without a restart',
    default: undefined,
    expected: 'a file path',
    parse: nonEmpty,
  },
  {
    key: 'tlsKeyFile',
    env: 'TLS_KEY_FILE',
    flag: 'tls-key-file',
    doc: "PEM private key of TLS_CERT_FILE's certificate",
    default: undefined,
    expected: 'a file path',
    parse: nonEmpty,
  },
  {
    key: 'tlsKeyPasswordFile',
    env: 'TLS_KEY_PASSWORD_FILE',
    flag: 'tls-key-password-file',
    doc: 'file whose first line is the password of an encrypted TLS_KEY_FILE (ssl.key.password)',
    default: undefined,
    expected: 'a file path',
    parse: nonEmpty,
  },
  {
    key: 'tlsCaFile',
    env: 'TLS_CA_FILE',
    flag: 'tls-ca-file',
    doc: 'PEM CA certificates that client certificates must be issued by (TLS_CLIENT_AUTH requested or required)',
    default: undefined,
    expected: 'a file path',
    parse: nonEmpty,
  },
  {
    key: 'tlsClientAuth',
    env: 'TLS_CLIENT_AUTH',
    flag: 'tls-client-auth',
    doc: "whether TLS listeners ask for a client certificate (ssl.client.auth): none; requested (a client may present one); required (refused without one). On tls:// a verified certificate's subject is the principal (User:CN=...,O=...)",
    default: 'none',
    expected: TLS_CLIENT_AUTH_VALUES.join('|'),
    parse: (v: string) =>
      (TLS_CLIENT_AUTH_VALUES as readonly string[]).includes(v.trim().toLowerCase())
        ? (v.trim().toLowerCase() as TlsClientAuth)
        : undefined,
  },
  {
    key: 'tlsReloadIntervalMs',
    env: 'MINNOW_TLS_RELOAD_INTERVAL_MS',
    flag: 'tls-reload-interval-ms',
    doc: 'how often the TLS files are checked for a renewed certificate, applied to new connections once unchanged for one more check; SIGHUP checks at once. 0: only on SIGHUP',
    default: '30000',
    expected: '0 or an integer 100..86400000',
    parse: (v: string) => (v.trim() === '0' ? 0 : int(100, 86_400_000)(v)),
  },
] as const satisfies readonly Setting<TlsSettings>[];
