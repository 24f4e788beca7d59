// Broker configuration: environment variables named as Tansu names them (so its compose files
// work), overridden by command-line flags. A bad value stops start-up with a message naming the
// variable, the value seen and the expected form.
import { LOG_LEVELS, LogLevel } from '../logger';
import {
  DEFAULT_STORAGE_URL,
  parseStorageUrl,
  STORAGE_URL_ENV,
  StorageUrl,
  StorageUrlError,
} from '../storage/storage-url';
import {
  describeListeners,
  type Endpoint,
  LISTENER_URL_FORM,
  ListenerConfig,
  parseListenerList,
  resolveListeners,
  usesTls,
} from './listeners';
import { TLS_CLIENT_AUTH_VALUES, TlsClientAuth } from './tls-material';
import { METRICS_LISTENER_FORM, parseMetricsListener, sharesPort } from './metrics/metrics-listener';

export type { Endpoint } from './listeners';

export interface BrokerConfig {
  /** Where the broker listens and with which security protocol (listeners.ts). */
  listeners: ListenerConfig[];
  /** What clients are told, by position in `listeners` (undefined: each listener's own address). */
  advertisedListeners: ListenerConfig[] | undefined;
  storageUrl: StorageUrl;
  clusterId: string | undefined;
  nodeId: number | undefined;
  /** postgres:// with NODE_ID unset: where the node id taken from the database is kept (src/cluster). */
  nodeIdFile: string;
  /** postgres://: how often a broker renews its lease in the database (src/cluster). */
  brokerHeartbeatMs: number;
  /** postgres://: a broker not renewed this long is taken out of Metadata and its groups move. */
  brokerLeaseMs: number;
  logLevel: LogLevel;
  /** SQLite `synchronous`: normal (default) survives process crashes, full also power loss. */
  sqliteSynchronous: 'normal' | 'full';
  autoCreateTopics: boolean;
  numPartitions: number;
  /** Largest request frame accepted (Kafka's socket.request.max.bytes). */
  maxRequestBytes: number;
  /** How often the retention task runs. */
  retentionCheckIntervalMs: number;
  /** How long the compactor sleeps when it has nothing to clean (log.cleaner.backoff.ms). */
  logCleanerBackoffMs: number;
  /** Memory for one compaction pass's key -> offset map (log.cleaner.dedupe.buffer.size). */
  logCleanerDedupeBytes: number;
  /** How long a new group waits for more members before its first rebalance (group.initial.rebalance.delay.ms). */
  groupInitialRebalanceDelayMs: number;
  /** Largest transaction.timeout.ms a producer may ask for (transaction.max.timeout.ms). */
  transactionMaxTimeoutMs: number;
  /** A transactional id idle (not Ongoing) this long is forgotten (transactional.id.expiration.ms). */
  transactionalIdExpirationMs: number;
  /** How often timed-out transactions are aborted and idle ids expired (transaction.abort.timed.out.transaction.cleanup.interval.ms). */
  transactionCleanupIntervalMs: number;
  /** The finalized transaction.version ApiVersions reports (features.ts): 2 lets Java 4.x clients use KIP-890 part 2. */
  transactionVersion: number;
  /** Least ms between the starts of two produce commits (group commit pacing, server/append-queue.ts). */
  commitIntervalMs: number;
  /** Partitions of all topics together (KIP-578's max.partitions, never merged into Kafka). */
  maxPartitions: number;
  /** Partitions of one topic. */
  maxPartitionsPerTopic: number;
  /** Partitions one CreateTopics / CreatePartitions / Metadata request may add (Kafka 4.0: 10,000). */
  maxPartitionsPerRequest: number;
  /** Debug: write every request frame to this folder (golden fixtures). */
  dumpFramesDir: string | undefined;
  /** Request bytes held across connections: frames being read + requests not yet answered (queued.max.request.bytes). */
  queuedMaxRequestBytes: number;
  /** Connections with no request for this long are closed (connections.max.idle.ms). */
  connectionsMaxIdleMs: number;
  /** Connections accepted at once; more are closed on arrival (max.connections). */
  maxConnections: number;
  /** Connections accepted at once from one IP address (max.connections.per.ip). */
  maxConnectionsPerIp: number;
  /** Most record bytes one Fetch response carries, whatever the request asks (Kafka's fetch.max.bytes). */
  fetchMaxBytes: number;
  /** Fetched record bytes held across connections until written (server/response-memory.ts). */
  fetchResponseMemoryBytes: number;
  /** SQLite: the WAL size past which the checkpointer restarts the WAL (storage/sqlite/checkpointer.ts). */
  walMaxBytes: number;
  /** Produce is refused while the database's file system has less free space (storage/disk-space.ts). */
  minFreeBytes: number;
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
  /** Samples a client quota's rate is measured over (quota.window.num). */
  quotaWindowNum: number;
  /** Length of one of those samples (quota.window.size.seconds). */
  quotaWindowSizeSeconds: number;
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
  /** Principals allowed everything, ACLs or not (super.users), as `User:NAME` strings. */
  superUsers: string[];
  /**
   * A resource no ACL names is open to all (allow.everyone.if.no.acl.found); undefined: decided from
   * the listeners (server/authorizer-defaults.ts).
   */
  allowEveryoneIfNoAclFound: boolean | undefined;
  /**
   * The settings an env var, a flag or startBroker's overrides gave: DescribeConfigs reports them
   * as STATIC_BROKER_CONFIG, the rest (at their defaults) as DEFAULT_CONFIG, as Kafka does.
   */
  explicit?: ReadonlySet<string>;
  /** Where the Prometheus endpoint (GET /metrics) listens; undefined: no endpoint (server/metrics). */
  metricsListener: Endpoint | undefined;
}

/** One setting: its env name, flag, default and parser. */
interface Setting<K extends keyof BrokerConfig> {
  key: K;
  env: string;
  flag: string;
  doc: string;
  default: string | undefined;
  expected: string;
  parse(value: string): BrokerConfig[K] | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const int = (min: number, max: number) => (v: string) => {
  if (!/^-?\d+$/.test(v.trim())) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};
const storageUrlOrUndefined = (v: string) => {
  try {
    return parseStorageUrl(v);
  } catch (err) {
    if (err instanceof StorageUrlError) return undefined;
    throw err;
  }
};
const bool = (v: string) => (/^(true|1|yes)$/i.test(v) ? true : /^(false|0|no)$/i.test(v) ? false : undefined);

export const SETTINGS = [
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
  {
    key: 'storageUrl',
    env: STORAGE_URL_ENV,
    flag: 'storage',
    doc: 'where state lives',
    default: DEFAULT_STORAGE_URL,
    expected: 'sqlite://PATH, sqlite:///ABS/PATH, memory:// or postgres://USER[:PASSWORD]@HOST[:PORT]/DB',
    parse: storageUrlOrUndefined,
  },
  {
    key: 'clusterId',
    env: 'CLUSTER_ID',
    flag: 'cluster-id',
    doc: 'cluster id stored in a new database (an existing one keeps its own)',
    default: undefined,
    expected: 'a non-empty string',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  {
    key: 'nodeId',
    env: 'NODE_ID',
    flag: 'node-id',
    doc: 'node id stored in a new database',
    default: undefined,
    expected: 'an integer 0..2147483647',
    parse: int(0, 2 ** 31 - 1),
  },
  {
    key: 'nodeIdFile',
    env: 'MINNOW_NODE_ID_FILE',
    flag: 'node-id-file',
    doc: 'postgres:// without NODE_ID: the file keeping the node id the database gave this broker',
    default: './data/minnow-node-id',
    expected: 'a file path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  {
    key: 'brokerHeartbeatMs',
    env: 'MINNOW_BROKER_HEARTBEAT_MS',
    flag: 'broker-heartbeat-ms',
    doc: 'postgres://: how often each broker renews its lease in the database',
    default: '2000',
    expected: 'an integer 10..600000 (ms)',
    parse: int(10, 600_000),
  },
  {
    key: 'brokerLeaseMs',
    env: 'MINNOW_BROKER_LEASE_MS',
    flag: 'broker-lease-ms',
    doc: 'postgres://: a broker that did not renew its lease for this long leaves Metadata and its groups move to the others',
    default: '10000',
    expected: 'an integer 100..3600000 (ms)',
    parse: int(100, 3_600_000),
  },
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    doc: 'error, warn, info or debug (debug logs every request)',
    default: 'info',
    expected: LOG_LEVELS.join('|'),
    parse: (v: string) =>
      (LOG_LEVELS as readonly string[]).includes(v.toLowerCase()) ? (v.toLowerCase() as LogLevel) : undefined,
  },
  {
    key: 'sqliteSynchronous',
    env: 'SQLITE_SYNCHRONOUS',
    flag: 'sqlite-synchronous',
    doc: 'normal: durable across process crashes; full: fsync every commit, durable across power loss',
    default: 'normal',
    expected: 'normal|full',
    parse: (v: string) =>
      v.toLowerCase() === 'normal' || v.toLowerCase() === 'full' ? (v.toLowerCase() as 'normal' | 'full') : undefined,
  },
  {
    key: 'autoCreateTopics',
    env: 'AUTO_CREATE_TOPICS_ENABLE',
    flag: 'auto-create-topics',
    doc: 'create unknown topics on Metadata/Produce (auto.create.topics.enable)',
    default: 'true',
    expected: 'true|false',
    parse: bool,
  },
  {
    key: 'numPartitions',
    env: 'NUM_PARTITIONS',
    flag: 'num-partitions',
    doc: 'partitions of auto-created topics (num.partitions)',
    default: '1',
    expected: 'an integer 1..10000',
    parse: int(1, 10000),
  },
  {
    key: 'maxRequestBytes',
    env: 'SOCKET_REQUEST_MAX_BYTES',
    flag: 'max-request-bytes',
    doc: 'largest request frame accepted (socket.request.max.bytes; Kafka: 100 MiB). Producers send at most max.request.size (1 MiB by default); at most QUEUED_MAX_REQUEST_BYTES',
    default: '16777216',
    expected: 'an integer 1024..1073741824',
    parse: int(1024, 2 ** 30),
  },
  {
    key: 'retentionCheckIntervalMs',
    env: 'LOG_RETENTION_CHECK_INTERVAL_MS',
    flag: 'retention-check-interval-ms',
    doc: 'how often expired batches are deleted (log.retention.check.interval.ms)',
    default: '300000',
    expected: 'an integer 100..86400000',
    parse: int(100, 86_400_000),
  },
  {
    key: 'logCleanerBackoffMs',
    env: 'LOG_CLEANER_BACKOFF_MS',
    flag: 'log-cleaner-backoff-ms',
    doc: "how long the compactor sleeps when no cleanup.policy=compact partition needs cleaning (log.cleaner.backoff.ms; Kafka's default)",
    default: '15000',
    expected: 'an integer 10..86400000 (ms)',
    parse: int(10, 86_400_000),
  },
  {
    key: 'logCleanerDedupeBytes',
    env: 'MINNOW_LOG_CLEANER_DEDUPE_BYTES',
    flag: 'log-cleaner-dedupe-bytes',
    doc: "memory for a compaction pass's key map (~80 bytes a key); a pass over more keys cleans a prefix of the dirty records and the next pass the rest (Kafka's log.cleaner.dedupe.buffer.size, 128 MiB)",
    default: '16777216',
    expected: 'an integer 65536..1073741824',
    parse: int(65536, 2 ** 30),
  },
  {
    key: 'groupInitialRebalanceDelayMs',
    env: 'GROUP_INITIAL_REBALANCE_DELAY_MS',
    flag: 'group-initial-rebalance-delay-ms',
    doc: "how long an empty group waits for more members before it assigns partitions (group.initial.rebalance.delay.ms; Kafka's default)",
    default: '3000',
    expected: 'an integer 0..300000',
    parse: int(0, 300_000),
  },
  // Transactions (src/transactions, issue 16): Kafka's names and defaults.
  {
    key: 'transactionMaxTimeoutMs',
    env: 'TRANSACTION_MAX_TIMEOUT_MS',
    flag: 'transaction-max-timeout-ms',
    doc: "largest transaction.timeout.ms a producer may ask for; InitProducerId asking more gets INVALID_TRANSACTION_TIMEOUT (transaction.max.timeout.ms; Kafka's default)",
    default: '900000',
    expected: 'an integer 1..2147483647 (ms)',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'transactionalIdExpirationMs',
    env: 'TRANSACTIONAL_ID_EXPIRATION_MS',
    flag: 'transactional-id-expiration-ms',
    doc: "a transactional id with no transaction going on and no request for this long is forgotten (transactional.id.expiration.ms; Kafka's default, 7 days)",
    default: '604800000',
    expected: 'an integer 1..2147483647 (ms)',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'transactionCleanupIntervalMs',
    env: 'TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS',
    flag: 'transaction-cleanup-interval-ms',
    doc: "how often transactions past their transaction.timeout.ms are aborted (fencing their producer) and expired transactional ids removed (transaction.abort.timed.out.transaction.cleanup.interval.ms; Kafka's default)",
    default: '10000',
    expected: 'an integer 1..2147483647 (ms)',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'transactionVersion',
    env: 'TRANSACTION_VERSION',
    flag: 'transaction-version',
    doc: 'the transaction.version feature level ApiVersions reports as finalized (kafka-features describe shows it): at 2, as on a new Kafka 4 cluster, Java 4.x producers use KIP-890 part 2 (no AddPartitionsToTxn, an epoch bump per transaction); at 0 or 1 they keep version 1, as every older client does. Kafka sets it with kafka-storage format --feature or kafka-features upgrade/downgrade',
    default: '2',
    expected: 'an integer 0..2',
    parse: int(0, 2),
  },
  {
    key: 'commitIntervalMs',
    env: 'MINNOW_COMMIT_INTERVAL_MS',
    flag: 'commit-interval-ms',
    doc: 'least time between two produce commits: requests arriving meanwhile share the next one (0: commit each event-loop turn)',
    default: '1',
    expected: 'an integer 0..1000',
    parse: int(0, 1000),
  },
  {
    key: 'dumpFramesDir',
    env: 'MINNOW_DUMP_FRAMES',
    flag: 'dump-frames',
    doc: 'debug: write each request frame as hex into this folder',
    default: undefined,
    expected: 'a folder path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  // Connection-level limits (issue 11), Kafka's names; defaults sized for a 1 GiB broker.
  {
    key: 'queuedMaxRequestBytes',
    env: 'QUEUED_MAX_REQUEST_BYTES',
    flag: 'queued-max-request-bytes',
    doc: 'request bytes held in memory across all connections (frames being read + requests not yet answered); when full, connections are not read until memory is freed (queued.max.request.bytes; Kafka: unbounded). At least SOCKET_REQUEST_MAX_BYTES',
    default: '67108864',
    expected: 'an integer 1024..2147483647',
    parse: int(1024, 2 ** 31 - 1),
  },
  {
    key: 'connectionsMaxIdleMs',
    env: 'CONNECTIONS_MAX_IDLE_MS',
    flag: 'connections-max-idle-ms',
    doc: "close connections that sent nothing and have no request in flight for this long (connections.max.idle.ms; Kafka's default)",
    default: '600000',
    expected: 'an integer 100..2147483647',
    parse: int(100, 2 ** 31 - 1),
  },
  {
    key: 'maxConnections',
    env: 'MAX_CONNECTIONS',
    flag: 'max-connections',
    doc: 'connections open at once; further ones are closed on arrival (max.connections; Kafka: unbounded)',
    default: '1000',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'maxConnectionsPerIp',
    env: 'MAX_CONNECTIONS_PER_IP',
    flag: 'max-connections-per-ip',
    doc: "connections open at once from one IP address; further ones are closed on arrival (max.connections.per.ip; Kafka's default: unbounded)",
    default: '2147483647',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
  // Fetch (issue 11 item 2). Kafka's default is 55 MiB, sized for a JVM that sends log segments
  // with sendfile; minnow holds each response in memory (read from SQLite, then written), so a
  // 1 GiB box gets 16 MiB: 20 consumers fetching at once stay near 320 MiB, and one fetch still
  // moves far more than the clients' per-partition default (1 MiB).
  {
    key: 'fetchMaxBytes',
    env: 'FETCH_MAX_BYTES',
    flag: 'fetch-max-bytes',
    doc: 'most record bytes in one fetch response, whatever the client asks (fetch.max.bytes); one batch bigger than this is still sent whole so consumers progress (KIP-74)',
    default: '16777216',
    expected: 'an integer 1024..2147483647',
    parse: int(1024, 2 ** 31 - 1),
  },
  {
    key: 'fetchResponseMemoryBytes',
    env: 'MINNOW_FETCH_RESPONSE_MEMORY_BYTES',
    flag: 'fetch-response-memory-bytes',
    doc: 'fetched record bytes held in memory across all connections, from the read until the client has taken the response (server/response-memory.ts); when full, fetches read nothing until memory frees (consumers see empty fetches). Kafka: none (it uses sendfile)',
    default: '268435456',
    expected: 'an integer 1024..2147483647',
    parse: int(1024, 2 ** 31 - 1),
  },
  // Partition bounds (server/partition-limits.ts): Kafka has none of them as settings.
  {
    key: 'maxPartitions',
    env: 'MINNOW_MAX_PARTITIONS',
    flag: 'max-partitions',
    doc: 'partitions of all topics together; creating more is refused with POLICY_VIOLATION (KIP-578 max.partitions)',
    default: '10000',
    expected: 'an integer 1..1000000',
    parse: int(1, 1_000_000),
  },
  {
    key: 'maxPartitionsPerTopic',
    env: 'MINNOW_MAX_PARTITIONS_PER_TOPIC',
    flag: 'max-partitions-per-topic',
    doc: 'partitions of one topic; more is refused with INVALID_PARTITIONS',
    default: '10000',
    expected: 'an integer 1..1000000',
    parse: int(1, 1_000_000),
  },
  {
    key: 'maxPartitionsPerRequest',
    env: 'MINNOW_MAX_PARTITIONS_PER_REQUEST',
    flag: 'max-partitions-per-request',
    doc: 'partitions one CreateTopics, CreatePartitions or auto-creating Metadata request may add (Kafka 4.0: 10000); more is refused with POLICY_VIOLATION',
    default: '10000',
    expected: 'an integer 1..1000000',
    parse: int(1, 1_000_000),
  },
  {
    key: 'walMaxBytes',
    env: 'MINNOW_WAL_MAX_BYTES',
    flag: 'wal-max-bytes',
    doc: 'SQLite: WAL size past which the broker checkpoints so its next commit starts the WAL over; the WAL stays near this under sustained produce (a running `minnow backup` pins it until it ends)',
    default: String(32 * 1024 * 1024),
    expected: 'an integer 1048576..1073741824',
    parse: int(2 ** 20, 2 ** 30),
  },
  // Disk space (storage/disk-space.ts). 256 MiB: 1.25 % of the kit's 20 GiB volume; room for a WAL
  // at its bound (32 MiB), the 16 MiB reserve file, half a minute of the seed workload's 7 MB/s
  // while an operator reacts, and the system's own logs. Redpanda's storage_min_free_bytes (5 GiB)
  // would be a quarter of that volume.
  {
    key: 'minFreeBytes',
    env: 'MINNOW_MIN_FREE_BYTES',
    flag: 'min-free-bytes',
    doc: 'produce is refused (POLICY_VIOLATION, "disk full: ...") while the database\'s file system has less free space than this, counting free pages inside the database; 0: off',
    default: '268435456',
    expected: 'an integer 0..1099511627776 (bytes)',
    parse: int(0, 2 ** 40),
  },
  // TLS listeners (issue 13, server/tls-material.ts). Kafka keeps keys in keystores
  // (ssl.keystore.location); minnow reads the PEM files every other TLS server reads.
  {
    key: 'tlsCertFile',
    env: 'TLS_CERT_FILE',
    flag: 'tls-cert-file',
    doc: 'PEM certificate the tls:// and sasl+tls:// listeners present; intermediate CA certificates may follow it. Renewals are picked up without a restart',
    default: undefined,
    expected: 'a file path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  {
    key: 'tlsKeyFile',
    env: 'TLS_KEY_FILE',
    flag: 'tls-key-file',
    doc: "PEM private key of TLS_CERT_FILE's certificate",
    default: undefined,
    expected: 'a file path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  {
    key: 'tlsKeyPasswordFile',
    env: 'TLS_KEY_PASSWORD_FILE',
    flag: 'tls-key-password-file',
    doc: 'file whose first line is the password of an encrypted TLS_KEY_FILE (ssl.key.password)',
    default: undefined,
    expected: 'a file path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  {
    key: 'tlsCaFile',
    env: 'TLS_CA_FILE',
    flag: 'tls-ca-file',
    doc: 'PEM CA certificates that client certificates must be issued by (TLS_CLIENT_AUTH requested or required)',
    default: undefined,
    expected: 'a file path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
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
  // Client quotas (server/quotas, KIP-13/124/612). Kafka's defaults: a rate is measured over 11
  // one-second samples, so a client may burst about ten seconds' worth before it is throttled.
  {
    key: 'quotaWindowNum',
    env: 'QUOTA_WINDOW_NUM',
    flag: 'quota-window-num',
    doc: "samples a client quota's rate is measured over (quota.window.num; Kafka's default); the quotas themselves are set with AlterClientQuotas (kafka-configs, `minnow quota set`)",
    default: '11',
    expected: 'an integer 2..1000',
    parse: int(2, 1000),
  },
  {
    key: 'quotaWindowSizeSeconds',
    env: 'QUOTA_WINDOW_SIZE_SECONDS',
    flag: 'quota-window-size-seconds',
    doc: "seconds of one of those samples (quota.window.size.seconds; Kafka's default); request-time and connection-rate throttles last at most one sample",
    default: '1',
    expected: 'an integer 1..3600',
    parse: int(1, 3600),
  },
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
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  {
    key: 'adminPasswordFile',
    env: 'MINNOW_ADMIN_PASSWORD_FILE',
    flag: 'admin-password-file',
    doc: "a file whose first line is the bootstrap admin's password (never logged); unset: no user is created",
    default: undefined,
    expected: 'a file path',
    parse: (v: string) => (v.trim() ? v.trim() : undefined),
  },
  // Authorization (issue 13, server/authorizer.ts), Kafka's StandardAuthorizer settings.
  {
    key: 'superUsers',
    env: 'SUPER_USERS',
    flag: 'super-users',
    doc: 'principals allowed every operation whatever the ACLs say, separated by ; (super.users)',
    default: '',
    expected: 'TYPE:NAME entries separated by ;, e.g. User:admin;User:ops',
    parse: parseSuperUsers,
  },
  {
    key: 'allowEveryoneIfNoAclFound',
    env: 'ALLOW_EVERYONE_IF_NO_ACL_FOUND',
    flag: 'allow-everyone-if-no-acl-found',
    doc: 'a resource no ACL names is open to every principal (allow.everyone.if.no.acl.found); default: true while no listener authenticates anyone (no sasl+ listener, TLS_CLIENT_AUTH not required), else false',
    default: undefined,
    expected: 'true|false',
    parse: bool,
  },
  // Broker metrics (server/metrics, issue 14): Prometheus text on a port of its own; off by default.
  {
    key: 'metricsListener',
    env: 'MINNOW_METRICS_LISTENER',
    flag: 'metrics-listener',
    doc: "HOST:PORT of an HTTP endpoint answering GET /metrics in Prometheus text format (request and error counts, bytes in/out, consumer group lag, database and volume size); never a Kafka listener's port. Unset: no endpoint",
    default: undefined,
    expected: METRICS_LISTENER_FORM,
    parse: parseMetricsListener,
  },
] as const satisfies readonly Setting<keyof BrokerConfig>[];

/** `User:admin;User:ops` -> ['User:admin', 'User:ops'] (Kafka splits super.users on ;). */
function parseSuperUsers(v: string): string[] | undefined {
  const entries = v
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return entries.every((e) => /^[^:\s]+:.+$/.test(e)) ? entries : undefined;
}

/**
 * Builds the configuration from env and flags (`flags` uses the flag names, e.g. { listener: ... }).
 * Throws ConfigError naming the variable or flag, the value and the expected form.
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Record<string, string | undefined> = {}): BrokerConfig {
  const out: Record<string, unknown> = {};
  const explicit = new Set<string>();
  for (const s of SETTINGS) {
    const fromFlag = flags[s.flag];
    const fromEnv = env[s.env];
    if (fromFlag !== undefined || (fromEnv !== undefined && fromEnv !== '')) explicit.add(s.key);
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined) ?? s.default;
    if (raw === undefined) {
      out[s.key] = undefined;
      continue;
    }
    const value = s.parse(raw);
    if (value === undefined) {
      const source =
        fromFlag !== undefined
          ? `--${s.flag}`
          : fromEnv !== undefined && fromEnv !== ''
            ? s.env
            : `default of ${s.env}`;
      throw new ConfigError(`${source}=${JSON.stringify(raw)} is not valid: expected ${s.expected}`);
    }
    out[s.key] = value;
  }
  const cfg = out as unknown as BrokerConfig;
  cfg.explicit = explicit;
  checkConfig(cfg);
  return cfg;
}

/** Checks between settings; throws ConfigError. startBroker runs it again on its overrides. */
export function checkConfig(cfg: BrokerConfig): void {
  try {
    resolveListeners(cfg.listeners, cfg.advertisedListeners);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const tlsListeners = cfg.listeners.filter((l) => usesTls(l.securityProtocol));
  if (tlsListeners.length > 0 && (!cfg.tlsCertFile || !cfg.tlsKeyFile)) {
    const named = describeListeners(
      tlsListeners.map((l) => ({ name: l.securityProtocol, host: l.host, port: l.port })),
    );
    throw new ConfigError(
      `LISTENER_URL has TLS listener(s) (${named}) but ${!cfg.tlsCertFile ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'} is not set: give TLS_CERT_FILE and TLS_KEY_FILE (PEM), or use tcp:// / sasl+tcp://`,
    );
  }
  // Node would check client certificates against its bundled public CAs: anyone could buy one.
  if (tlsListeners.length > 0 && cfg.tlsClientAuth !== 'none' && !cfg.tlsCaFile) {
    throw new ConfigError(
      `TLS_CLIENT_AUTH=${cfg.tlsClientAuth} needs TLS_CA_FILE: the PEM CA certificates that issue your clients' certificates`,
    );
  }
  // A frame is admitted whole from the request memory pool, so a larger one could never be read.
  if (cfg.maxRequestBytes > cfg.queuedMaxRequestBytes) {
    throw new ConfigError(
      `SOCKET_REQUEST_MAX_BYTES=${cfg.maxRequestBytes} is larger than QUEUED_MAX_REQUEST_BYTES=${cfg.queuedMaxRequestBytes}: a request that big could never be read; raise QUEUED_MAX_REQUEST_BYTES or lower SOCKET_REQUEST_MAX_BYTES`,
    );
  }
  // Two servers cannot bind one port; say which settings collide rather than fail on EADDRINUSE.
  const metrics = cfg.metricsListener;
  const taken = metrics && cfg.listeners.find((l) => sharesPort(metrics, l));
  if (metrics && taken) {
    throw new ConfigError(
      `MINNOW_METRICS_LISTENER=${metrics.host}:${metrics.port} uses the port of the Kafka listener ${taken.host}:${taken.port} (LISTENER_URL): give the metrics endpoint a port of its own, e.g. 9464`,
    );
  }
  // A lease shorter than two heartbeats lapses on one late renewal: brokers would flap in Metadata.
  if (cfg.brokerLeaseMs !== undefined && cfg.brokerLeaseMs < 2 * cfg.brokerHeartbeatMs) {
    throw new ConfigError(
      `MINNOW_BROKER_LEASE_MS=${cfg.brokerLeaseMs} is under twice MINNOW_BROKER_HEARTBEAT_MS=${cfg.brokerHeartbeatMs}: one late renewal would take the broker out; raise the lease or lower the heartbeat`,
    );
  }
  // Auto-created topics get NUM_PARTITIONS partitions: more than a topic may have could never be used.
  if (cfg.numPartitions > cfg.maxPartitionsPerTopic) {
    throw new ConfigError(
      `NUM_PARTITIONS=${cfg.numPartitions} is over MINNOW_MAX_PARTITIONS_PER_TOPIC=${cfg.maxPartitionsPerTopic}: no topic could be auto-created; lower the one or raise the other`,
    );
  }
}
