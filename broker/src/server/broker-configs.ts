// Broker configs as Kafka's DescribeConfigs/AlterConfigs see them (KIP-226 dynamic broker
// configs). minnow reports its own start-up settings under Kafka's names (read-only, as in
// Kafka) and the broker-level defaults of every topic config (log.retention.ms, message.max.bytes
// ...). Those Kafka lets change at runtime (DynamicBrokerConfig: the first broker synonym of each
// topic config but message.format.version) are dynamic here too: stored in the database per node
// id or cluster-wide (resource ""), and used as the topic default where minnow applies the topic config.
import { atLeast, ConfigType, ConfigTypeId, parseAll, Validator } from '../storage/config-def';
import type { Storage } from '../storage/storage';
import { cleanupPolicyError, TOPIC_CONFIGS } from '../storage/topic-config';
import { TOPIC_CONFIG_DOCS } from '../storage/topic-config-docs';
import { BROKER_CONFIG_DOCS } from './broker-config-docs';
import { inertBrokerConfigs } from './inert-broker-configs';
import { KAFKA_DYNAMIC_BROKER_CONFIGS, KAFKA_READ_ONLY_BROKER_CONFIGS } from './kafka-broker-config-list';
import type { BrokerConfig } from './config';

/** DescribeConfigsResponse.ConfigSource */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  /** The Java admin client's name for TOPIC_CONFIG (ConfigEntry.ConfigSource). */
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

export interface BrokerConfigDef {
  type: ConfigTypeId;
  /** Kafka's default (null: none, e.g. log.retention.ms, which falls back to log.retention.hours). */
  kafkaDefault: string | null;
  /** In Kafka's DynamicBrokerConfig.AllDynamicConfigs. */
  dynamic: boolean;
  validator: Validator | null;
  doc: string;
  /** The topic config this broker config is the default of. */
  topicConfig?: string;
  /** minnow's start-up value (STATIC_BROKER_CONFIG), for the settings minnow has. */
  startup?: (cfg: BrokerConfig, nodeId: number) => string;
  /** The minnow setting (env var / flag) behind `startup`. */
  setting?: keyof BrokerConfig;
  /** One of Kafka's dynamic configs minnow stores and describes but does not use (inert-broker-configs.ts). */
  inert?: true;
  /** A PASSWORD (Kafka's isSensitive): described with a null value. */
  sensitive?: boolean;
}

const LONG_MAX = '9223372036854775807';

/** Broker configs whose Kafka default is null, and the secondary synonyms (hours, minutes ...). */
const NULL_DEFAULTS = new Set(['log.retention.ms', 'log.roll.ms', 'log.roll.jitter.ms', 'log.flush.interval.ms']);
const SECONDARY: Record<string, [ConfigTypeId, string | null, Validator | null]> = {
  'log.retention.minutes': [ConfigType.INT, null, null],
  'log.retention.hours': [ConfigType.INT, '168', null],
  'log.roll.hours': [ConfigType.INT, '168', atLeast(1)],
  'log.roll.jitter.hours': [ConfigType.INT, '0', atLeast(0)],
  'log.flush.scheduler.interval.ms': [ConfigType.LONG, LONG_MAX, null],
};

function buildBrokerConfigs(): Record<string, BrokerConfigDef> {
  const doc = (name: string, fallback = '') => BROKER_CONFIG_DOCS[name] ?? TOPIC_CONFIG_DOCS[name] ?? fallback;
  const startup = (
    type: ConfigTypeId,
    kafkaDefault: string | null,
    value: BrokerConfigDef['startup'],
    setting?: keyof BrokerConfig,
  ): BrokerConfigDef => ({
    type,
    kafkaDefault,
    dynamic: false,
    validator: null,
    doc: '',
    startup: value,
    setting,
  });
  const out: Record<string, BrokerConfigDef> = {
    'broker.id': startup(ConfigType.INT, '-1', (_c, id) => String(id)),
    'node.id': startup(ConfigType.INT, '-1', (_c, id) => String(id)),
    'auto.create.topics.enable': startup(
      ConfigType.BOOLEAN,
      'true',
      (c) => String(c.autoCreateTopics),
      'autoCreateTopics',
    ),
    'num.partitions': startup(ConfigType.INT, '1', (c) => String(c.numPartitions), 'numPartitions'),
    'default.replication.factor': startup(ConfigType.INT, '1', () => '1'),
    'log.retention.check.interval.ms': startup(
      ConfigType.LONG,
      '300000',
      (c) => String(c.retentionCheckIntervalMs),
      'retentionCheckIntervalMs',
    ),
    'log.cleaner.backoff.ms': startup(
      ConfigType.LONG,
      '15000',
      (c) => String(c.logCleanerBackoffMs),
      'logCleanerBackoffMs',
    ),
    'log.cleaner.dedupe.buffer.size': startup(
      ConfigType.LONG,
      '134217728',
      (c) => String(c.logCleanerDedupeBytes),
      'logCleanerDedupeBytes',
    ),
    'socket.request.max.bytes': startup(
      ConfigType.INT,
      '104857600',
      (c) => String(c.maxRequestBytes),
      'maxRequestBytes',
    ),
    // Kafka's TLS settings live in keystores; of them only the client-auth policy has a minnow setting.
    'ssl.client.auth': startup(ConfigType.STRING, 'none', (c) => c.tlsClientAuth, 'tlsClientAuth'),
    'group.initial.rebalance.delay.ms': startup(
      ConfigType.INT,
      '3000',
      (c) => String(c.groupInitialRebalanceDelayMs),
      'groupInitialRebalanceDelayMs',
    ),
    'group.consumer.session.timeout.ms': startup(
      ConfigType.INT,
      '45000',
      (c) => String(c.groupConsumerSessionTimeoutMs),
      'groupConsumerSessionTimeoutMs',
    ),
    'group.consumer.heartbeat.interval.ms': startup(
      ConfigType.INT,
      '5000',
      (c) => String(c.groupConsumerHeartbeatIntervalMs),
      'groupConsumerHeartbeatIntervalMs',
    ),
    'group.consumer.min.session.timeout.ms': startup(
      ConfigType.INT,
      '45000',
      (c) => String(c.groupConsumerMinSessionTimeoutMs),
      'groupConsumerMinSessionTimeoutMs',
    ),
    'group.consumer.max.session.timeout.ms': startup(
      ConfigType.INT,
      '60000',
      (c) => String(c.groupConsumerMaxSessionTimeoutMs),
      'groupConsumerMaxSessionTimeoutMs',
    ),
    'group.consumer.min.heartbeat.interval.ms': startup(
      ConfigType.INT,
      '5000',
      (c) => String(c.groupConsumerMinHeartbeatIntervalMs),
      'groupConsumerMinHeartbeatIntervalMs',
    ),
    'group.consumer.max.heartbeat.interval.ms': startup(
      ConfigType.INT,
      '15000',
      (c) => String(c.groupConsumerMaxHeartbeatIntervalMs),
      'groupConsumerMaxHeartbeatIntervalMs',
    ),
    'group.consumer.assignors': startup(
      ConfigType.LIST,
      'uniform,range',
      (c) => c.groupConsumerAssignors.join(','),
      'groupConsumerAssignors',
    ),
    'group.consumer.max.size': startup(
      ConfigType.INT,
      '2147483647',
      (c) => String(c.groupConsumerMaxSize),
      'groupConsumerMaxSize',
    ),
    'group.consumer.migration.policy': startup(
      ConfigType.STRING,
      'bidirectional',
      (c) => c.groupConsumerMigrationPolicy,
      'groupConsumerMigrationPolicy',
    ),
    'transaction.max.timeout.ms': startup(
      ConfigType.INT,
      '900000',
      (c) => String(c.transactionMaxTimeoutMs),
      'transactionMaxTimeoutMs',
    ),
    'transactional.id.expiration.ms': startup(
      ConfigType.INT,
      '604800000',
      (c) => String(c.transactionalIdExpirationMs),
      'transactionalIdExpirationMs',
    ),
    'transaction.abort.timed.out.transaction.cleanup.interval.ms': startup(
      ConfigType.INT,
      '10000',
      (c) => String(c.transactionCleanupIntervalMs),
      'transactionCleanupIntervalMs',
    ),
    'queued.max.request.bytes': startup(
      ConfigType.LONG,
      '-1',
      (c) => String(c.queuedMaxRequestBytes),
      'queuedMaxRequestBytes',
    ),
    'connections.max.idle.ms': startup(
      ConfigType.LONG,
      '600000',
      (c) => String(c.connectionsMaxIdleMs),
      'connectionsMaxIdleMs',
    ),
    'max.connections': startup(ConfigType.INT, '2147483647', (c) => String(c.maxConnections), 'maxConnections'),
    'max.connections.per.ip': startup(
      ConfigType.INT,
      '2147483647',
      (c) => String(c.maxConnectionsPerIp),
      'maxConnectionsPerIp',
    ),
    'fetch.max.bytes': startup(ConfigType.INT, '57671680', (c) => String(c.fetchMaxBytes), 'fetchMaxBytes'),
    'quota.window.num': startup(ConfigType.INT, '11', (c) => String(c.quotaWindowNum), 'quotaWindowNum'),
    'quota.window.size.seconds': startup(
      ConfigType.INT,
      '1',
      (c) => String(c.quotaWindowSizeSeconds),
      'quotaWindowSizeSeconds',
    ),
    // SASL (server/sasl/)
    'sasl.enabled.mechanisms': startup(ConfigType.LIST, 'GSSAPI', (c) => c.saslMechanisms.join(','), 'saslMechanisms'),
    'connections.max.reauth.ms': startup(
      ConfigType.LONG,
      '0',
      (c) => String(c.connectionsMaxReauthMs),
      'connectionsMaxReauthMs',
    ),
    'connection.failed.authentication.delay.ms': startup(
      ConfigType.INT,
      '100',
      (c) => String(c.connectionFailedAuthenticationDelayMs),
      'connectionFailedAuthenticationDelayMs',
    ),
  };
  for (const [name, def] of Object.entries(out)) def.doc = doc(name);
  for (const [topicName, t] of Object.entries(TOPIC_CONFIGS)) {
    t.serverSynonyms.forEach((name, i) => {
      const [type, kafkaDefault, validator] =
        i === 0 ? [t.type, NULL_DEFAULTS.has(name) ? null : t.default, t.validator] : SECONDARY[name]!;
      const dynamic = i === 0 && topicName !== 'message.format.version';
      out[name] = {
        type,
        kafkaDefault,
        dynamic,
        validator,
        doc: doc(name, t.doc),
        topicConfig: i === 0 ? topicName : undefined,
      };
    });
  }
  return out;
}

export const BROKER_CONFIGS: Readonly<Record<string, BrokerConfigDef>> = (() => {
  const own = buildBrokerConfigs();
  return { ...own, ...inertBrokerConfigs(own) };
})();

/** DynamicBrokerConfig.brokerConfigSynonyms: the names that set the same value, highest priority first. */
export function brokerSynonyms(name: string): string[] {
  if (name === 'log.flush.interval.ms') return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
  for (const group of [
    ['log.roll.ms', 'log.roll.hours'],
    ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
    ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
  ]) {
    if (group.includes(name)) return group;
  }
  return [name];
}

export interface Synonym {
  name: string;
  value: string | null;
  source: number;
}

/** What the broker runs with: its dynamic configs (per node, cluster-wide) and start-up settings. */
export interface BrokerConfigLayers {
  perBroker: Record<string, string>;
  clusterDefault: Record<string, string>;
  startup: Record<string, string>;
}

export async function brokerConfigLayers(
  storage: Storage,
  cfg: BrokerConfig,
  nodeId: number,
): Promise<BrokerConfigLayers> {
  const startup: Record<string, string> = {};
  for (const [name, def] of Object.entries(BROKER_CONFIGS)) {
    if (!def.startup) continue;
    const value = def.startup(cfg, nodeId);
    // Kafka reports a setting its properties file does not give as DEFAULT_CONFIG: so does minnow
    // for one no env var or flag gave, unless minnow's own default differs from Kafka's.
    if ((def.setting && cfg.explicit?.has(def.setting)) || value !== def.kafkaDefault) startup[name] = value;
  }
  const [perBroker, clusterDefault] = await Promise.all([
    storage.brokerConfigs(String(nodeId)),
    storage.brokerConfigs(''),
  ]);
  return { perBroker, clusterDefault, startup };
}

/**
 * ConfigHelper.configSynonyms: every layer that sets one of `names`, in precedence order (dynamic
 * per broker, dynamic cluster-wide, static, Kafka's default), from `name` on.
 */
export function configSynonyms(name: string, layers: BrokerConfigLayers): Synonym[] {
  const names = brokerSynonyms(name);
  const all: Synonym[] = [];
  const add = (map: Record<string, string | null>, source: number) => {
    for (const n of names) {
      const v = map[n];
      if (v !== undefined && v !== null) all.push({ name: n, value: v, source });
    }
  };
  add(layers.perBroker, ConfigSource.DYNAMIC_BROKER_CONFIG);
  add(layers.clusterDefault, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
  add(layers.startup, ConfigSource.STATIC_BROKER_CONFIG);
  add(Object.fromEntries(names.map((n) => [n, BROKER_CONFIGS[n]?.kafkaDefault ?? null])), ConfigSource.DEFAULT_CONFIG);
  const from = all.findIndex((s) => s.name === name);
  return from < 0 ? [] : all.slice(from);
}

/**
 * The broker-level default of each topic config set dynamically (per node over cluster-wide),
 * keyed by topic config name: the third argument of topicConfig().
 */
export async function brokerTopicDefaults(storage: Storage, nodeId: number): Promise<Record<string, string>> {
  const [perBroker, cluster] = await Promise.all([storage.brokerConfigs(String(nodeId)), storage.brokerConfigs('')]);
  const out: Record<string, string> = {};
  for (const source of [cluster, perBroker]) {
    for (const [name, value] of Object.entries(source)) {
      const topic = BROKER_CONFIGS[name]?.topicConfig;
      if (topic) out[topic] = value;
    }
  }
  return out;
}

/** Scala's Set.toString, as Kafka's messages print config name sets. */
const scalaSet = (names: string[]) => `Set(${names.join(', ')})`;

export type BrokerConfigCheck = { ok: true; configs: Record<string, string> } | { ok: false; message: string };

/**
 * DynamicBrokerConfig.validate for the configs a BROKER resource would hold after the change:
 * non-dynamic names are refused ("Cannot update these configs dynamically"), values are parsed
 * and validated. Errors are for INVALID_REQUEST, as Kafka sends them (KAFKA-13609).
 */
export function validateBrokerConfigs(configs: Record<string, string>): BrokerConfigCheck {
  const names = Object.keys(configs);
  // Kafka refuses its static configs; minnow's start-up settings under Kafka's names too.
  const fixed = names.filter((n) =>
    BROKER_CONFIGS[n] ? !BROKER_CONFIGS[n]!.dynamic : KAFKA_READ_ONLY_BROKER_CONFIGS.has(n),
  );
  if (fixed.length > 0) {
    // Kafka changes these at runtime; minnow takes them at start-up only: say so.
    const settings = fixed
      .filter((n) => KAFKA_DYNAMIC_BROKER_CONFIGS[n])
      .map((n) => BROKER_CONFIGS[n]?.setting)
      .filter((s) => s !== undefined);
    const hint =
      settings.length > 0
        ? `; minnow reads ${settings.join(', ')} at start-up only (Kafka at runtime): change the setting and restart`
        : '';
    return { ok: false, message: `Cannot update these configs dynamically: ${scalaSet(fixed)}${hint}` };
  }
  // A name Kafka does not know either is a custom config: Kafka stores it (plugins read their own),
  // and so does minnow, unchecked; DescribeConfigs shows it as sensitive, without its value.
  const known = Object.fromEntries(Object.entries(configs).filter(([n]) => BROKER_CONFIGS[n]));
  const parsed = parseAll(known, (name) => BROKER_CONFIGS[name]!);
  if (!parsed.ok) return parsed;
  const policyError = cleanupPolicyError('log.cleanup.policy', parsed.configs['log.cleanup.policy']);
  if (policyError) return { ok: false, message: policyError };
  const custom = Object.fromEntries(Object.entries(configs).filter(([n]) => !BROKER_CONFIGS[n]));
  return { ok: true, configs: { ...parsed.configs, ...custom } };
}

/** A broker config minnow does not define nor Kafka: stored as given, described without its value. */
export const isCustomBrokerConfig = (name: string): boolean => !BROKER_CONFIGS[name];
