// Broker configuration: environment variables named as Tansu names them (so its compose files
// work), overridden by command-line flags. A bad value stops start-up with a message naming the
// variable, the value seen and the expected form. The settings are declared per concern in
// settings/ and composed here into SETTINGS, the one table that drives the env vars, the flags,
// validation, `minnow serve --help` and docs/configuration.md.
import { describeListeners, resolveListeners, usesTls } from './listeners';
import { sharesPort } from './metrics/metrics-listener';
import { AUTHORIZATION_SETTINGS, AuthorizationSettings } from './settings/authorization-settings';
import { CLUSTER_SETTINGS, ClusterSettings } from './settings/cluster-settings';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from './settings/coordinator-settings';
import {
  CONSUMER_GROUP_SETTINGS,
  ConsumerGroupSettings,
  consumerGroupSettingsProblem,
} from './settings/consumer-group-settings';
import { DIAGNOSTIC_SETTINGS, DiagnosticSettings } from './settings/diagnostic-settings';
import { LIMIT_SETTINGS, LimitSettings } from './settings/limit-settings';
import { LISTENER_SETTINGS, ListenerSettings } from './settings/listener-settings';
import { QUOTA_SETTINGS, QuotaSettings } from './settings/quota-settings';
import { SASL_SETTINGS, SaslSettings } from './settings/sasl-settings';
import { STORAGE_SETTINGS, StorageSettings } from './settings/storage-settings';
import { TLS_SETTINGS, TlsSettings } from './settings/tls-settings';
import { TOPIC_SETTINGS, TopicSettings } from './settings/topic-settings';

export type { Endpoint } from './listeners';

export interface BrokerConfig
  extends
    ListenerSettings,
    StorageSettings,
    ClusterSettings,
    TopicSettings,
    CoordinatorSettings,
    ConsumerGroupSettings,
    LimitSettings,
    QuotaSettings,
    TlsSettings,
    SaslSettings,
    AuthorizationSettings,
    DiagnosticSettings {
  /**
   * The settings an env var, a flag or startBroker's overrides gave: DescribeConfigs reports them
   * as STATIC_BROKER_CONFIG, the rest (at their defaults) as DEFAULT_CONFIG, as Kafka does.
   */
  explicit?: ReadonlySet<string>;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const BY_CONCERN = [
  ...LISTENER_SETTINGS,
  ...STORAGE_SETTINGS,
  ...CLUSTER_SETTINGS,
  ...TOPIC_SETTINGS,
  ...COORDINATOR_SETTINGS,
  ...CONSUMER_GROUP_SETTINGS,
  ...LIMIT_SETTINGS,
  ...QUOTA_SETTINGS,
  ...TLS_SETTINGS,
  ...SASL_SETTINGS,
  ...AUTHORIZATION_SETTINGS,
  ...DIAGNOSTIC_SETTINGS,
];

type AnySetting = (typeof BY_CONCERN)[number];

/**
 * The order of `minnow serve --help` and docs/configuration.md: what a user sets first (listeners,
 * storage, cluster) first. Every setting appears exactly once (checked as the module loads).
 */
const ORDER: readonly AnySetting['key'][] = [
  'listeners',
  'advertisedListeners',
  'storageUrl',
  'clusterId',
  'nodeId',
  'nodeIdFile',
  'brokerHeartbeatMs',
  'brokerLeaseMs',
  'logLevel',
  'sqliteSynchronous',
  'autoCreateTopics',
  'numPartitions',
  'maxRequestBytes',
  'retentionCheckIntervalMs',
  'logCleanerBackoffMs',
  'logCleanerDedupeBytes',
  'groupInitialRebalanceDelayMs',
  'groupConsumerSessionTimeoutMs',
  'groupConsumerHeartbeatIntervalMs',
  'groupConsumerMinSessionTimeoutMs',
  'groupConsumerMaxSessionTimeoutMs',
  'groupConsumerMinHeartbeatIntervalMs',
  'groupConsumerMaxHeartbeatIntervalMs',
  'groupConsumerAssignors',
  'groupConsumerMaxSize',
  'groupConsumerMigrationPolicy',
  'transactionMaxTimeoutMs',
  'transactionalIdExpirationMs',
  'transactionCleanupIntervalMs',
  'transactionVersion',
  'commitIntervalMs',
  'dumpFramesDir',
  'queuedMaxRequestBytes',
  'connectionsMaxIdleMs',
  'maxConnections',
  'maxConnectionsPerIp',
  'fetchMaxBytes',
  'fetchResponseMemoryBytes',
  'maxPartitions',
  'maxPartitionsPerTopic',
  'maxPartitionsPerRequest',
  'walMaxBytes',
  'minFreeBytes',
  'tlsCertFile',
  'tlsKeyFile',
  'tlsKeyPasswordFile',
  'tlsCaFile',
  'tlsClientAuth',
  'tlsReloadIntervalMs',
  'quotaWindowNum',
  'quotaWindowSizeSeconds',
  'saslMechanisms',
  'connectionsMaxReauthMs',
  'connectionFailedAuthenticationDelayMs',
  'saslFailedLoginMaxDelayMs',
  'maxUnauthenticatedConnectionsPerIp',
  'saslMaxFailuresPerAddress',
  'adminUser',
  'adminPasswordFile',
  'superUsers',
  'allowEveryoneIfNoAclFound',
  'metricsListener',
];

/** BY_CONCERN in ORDER; throws (a programming error) when the two name different settings. */
function inOrder(settings: readonly AnySetting[], order: readonly AnySetting['key'][]): readonly AnySetting[] {
  const byKey = new Map(settings.map((s) => [s.key, s]));
  const missing = settings.filter((s) => !order.includes(s.key)).map((s) => s.key);
  if (byKey.size !== settings.length || new Set(order).size !== order.length || missing.length > 0)
    throw new Error(
      `config.ts ORDER must name every setting of settings/ exactly once (not named: ${missing.join(', ') || 'none'}; named twice or unknown otherwise)`,
    );
  return order.map((k) => byKey.get(k)!);
}

export const SETTINGS = inOrder(BY_CONCERN, ORDER);

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
  const consumerGroups = consumerGroupSettingsProblem(cfg);
  if (consumerGroups) throw new ConfigError(consumerGroups);
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
