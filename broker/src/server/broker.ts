// The broker: configuration + storage + TCP server + background retention, with a clean stop.
import * as net from 'node:net';
import { GroupCoordinator } from '../groups/coordinator';
import { DiskSpace } from '../storage/disk-space';
import { openStorage } from '../storage/open-storage';
import { parseStorageUrl, StorageUrl } from '../storage/storage-url';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage';
import type { Storage } from '../storage/storage';
import { topicConfig } from '../storage/topic-config';
import { brokerTopicDefaults } from './broker-configs';
import { AppendQueue } from './append-queue';
import { Authorizer } from './authorizer';
import { allowEveryoneIfNoAclFound } from './authorizer-defaults';
import { BrokerConfig, checkConfig, defaultAdvertised, loadConfig } from './config';
import { Connection, ConnectionShared } from './connection';
import { ConnectionRegistry } from './connection-registry';
import type { BrokerContext } from './context';
import { FetchWaiters, partitionKey } from './fetch-waiters';
import { createHandlers } from './handlers';
import { createLogger, Logger, WarningLimiter } from '../logger';
import { RequestMemoryPool } from './request-memory-pool';
import { retryIfDiskFull } from './space-retry';
import type { KafkaPrincipal } from './session';
import { isReservedTopic } from './topic-names';

/** Batches deleted per retention step, so one step never holds the writer for long. */
const RETENTION_BATCHES_PER_STEP = 500;
/** How long a stop waits for in-flight requests before closing connections anyway. */
const DRAIN_TIMEOUT_MS = 10_000;

export interface StartOptions {
  /** Overrides on top of the configuration read from `env`; the storage URL parsed or as text. */
  config?: Partial<Omit<BrokerConfig, 'storageUrl'>> & { storageUrl?: StorageUrl | string };
  /** Environment to read (default: an empty one, so tests are not affected by the shell). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  now?: () => number;
  /**
   * Tests only, until SASL sets principals: the principal a connection gets from the client id of
   * its requests (undefined: it stays as it is). Never set by `minnow serve`.
   */
  testOnlyPrincipalForClientId?: (clientId: string | null) => KafkaPrincipal | undefined;
}

export interface RunningBroker {
  host: string;
  port: number;
  config: BrokerConfig;
  context: BrokerContext;
  /** Stops accepting, answers in-flight requests, closes the database. */
  stop(): Promise<void>;
}

export async function startBroker(opts: StartOptions = {}): Promise<RunningBroker> {
  const base = loadConfig(opts.env ?? {});
  // A whole loadConfig() result (minnow serve) brings its own list; else each override counts as given.
  const explicit = opts.config?.explicit ?? new Set([...(base.explicit ?? []), ...Object.keys(opts.config ?? {})]);
  const storageUrl =
    typeof opts.config?.storageUrl === 'string'
      ? parseStorageUrl(opts.config.storageUrl)
      : (opts.config?.storageUrl ?? base.storageUrl);
  const config: BrokerConfig = { ...base, ...opts.config, storageUrl, explicit };
  if (opts.config?.listener && !opts.config.advertised && !opts.env?.ADVERTISED_LISTENER_URL)
    config.advertised = defaultAdvertised(config.listener);
  checkConfig(config);
  const logger = opts.logger ?? createLogger(config.logLevel);
  const now = opts.now ?? Date.now;
  const storage: Storage = openStorage(config.storageUrl, {
    synchronous: config.sqliteSynchronous,
    walMaxBytes: config.walMaxBytes,
    warn: (msg, fields) => logger.error(msg, fields),
  });
  const diskSpace =
    storage instanceof SqliteStorage
      ? new DiskSpace({
          dbPath: storage.path,
          floorBytes: config.minFreeBytes,
          reusableBytes: () => storage.reusableBytes(),
          log: (msg, fields) => logger.error(msg, fields),
        })
      : undefined;
  diskSpace?.refresh(); // writes the reserve file if there is room for it
  let identity;
  try {
    identity = storage.identity({ clusterId: config.clusterId, nodeId: config.nodeId });
  } catch (err) {
    storage.close(); // and its lock: a retry in this process must not find it held
    throw err;
  }
  if (config.clusterId && config.clusterId !== identity.clusterId) {
    logger.warn('CLUSTER_ID differs from the id stored in the database; keeping the stored one', {
      wanted: config.clusterId,
      stored: identity.clusterId,
    });
  }
  for (const t of storage.listTopics().filter((t) => isReservedTopic(t.name))) {
    // An older minnow auto-created internal names as ordinary topics (a lag monitor asking for
    // __consumer_offsets did); offsets were never kept there.
    logger.warn(
      'a topic has an internal topic name; minnow keeps that state in its database, not in a topic: delete it (kafka-topics --delete)',
      { topic: t.name, partitions: t.partitionCount },
    );
  }
  const fetchWaiters = new FetchWaiters();
  const appendQueue = new AppendQueue(
    storage,
    logger,
    (parts) => {
      for (const p of parts) fetchWaiters.notify(partitionKey(p.topic, p.partition));
    },
    { now, commitIntervalMs: config.commitIntervalMs, diskSpace },
  );
  const groups = new GroupCoordinator({
    storage,
    logger,
    now,
    initialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
  });
  const authorizer = new Authorizer(storage, {
    superUsers: config.superUsers,
    allowEveryoneIfNoAclFound: allowEveryoneIfNoAclFound(config),
  });
  const advertised = { ...config.advertised };
  const context: BrokerContext = {
    config,
    storage,
    identity,
    advertised,
    logger,
    appendQueue,
    fetchWaiters,
    groups,
    diskSpace,
    authorizer,
    now,
  };
  const handlers = createHandlers();

  const warnings = new WarningLimiter(logger);
  const shared: ConnectionShared = {
    pool: new RequestMemoryPool(config.queuedMaxRequestBytes),
    warnings,
    testOnlyPrincipalForClientId: opts.testOnlyPrincipalForClientId,
  };
  const registry = new ConnectionRegistry(config, logger, warnings);
  const connections = registry.connections;
  let nextConnectionId = 1;
  const server = net.createServer((socket) => {
    registry.accept(socket, () => new Connection(socket, context, handlers, nextConnectionId++, shared));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listener.port, config.listener.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err) => {
    // Port taken, say: let go of the database (and its lock) before reporting it.
    groups.close();
    storage.close();
    throw err;
  });
  const port = (server.address() as net.AddressInfo).port;
  if (advertised.port === 0) advertised.port = port;

  const retention = setInterval(() => {
    try {
      // Dynamic broker configs (log.retention.ms / log.retention.bytes) change the topic defaults at runtime.
      const brokerDefaults = brokerTopicDefaults(storage, identity.nodeId);
      const defaults = {
        retentionMs: Number(topicConfig({}, 'retention.ms', brokerDefaults)),
        retentionBytes: Number(topicConfig({}, 'retention.bytes', brokerDefaults)),
      };
      const r = retryIfDiskFull(context, () => storage.enforceRetention(now(), defaults, RETENTION_BATCHES_PER_STEP));
      if (r.deletedBatches > 0) {
        logger.info('retention deleted batches', { ...r });
        diskSpace?.invalidate();
      }
    } catch (err) {
      logger.error('retention step failed', { err });
    }
  }, config.retentionCheckIntervalMs);
  retention.unref();

  logger.info('minnow broker listening', {
    listener: `${config.listener.host}:${port}`,
    advertised: `${advertised.host}:${advertised.port}`,
    storage: config.storageUrl.url,
    clusterId: identity.clusterId,
    nodeId: identity.nodeId,
    apis: handlers.size,
    superUsers: config.superUsers.length,
    allowEveryoneIfNoAclFound: authorizer.allowEveryoneIfNoAclFound,
    acls: authorizer.acls().length,
  });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('stopping: no new connections, answering in-flight requests');
      clearInterval(retention);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      fetchWaiters.close();
      groups.close();
      const drained = Promise.all([...connections].map((c) => c.drained()));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)))]);
      clearTimeout(timer);
      for (const c of connections) c.close();
      await closed;
      registry.stop();
      warnings.flush();
      storage.close();
      // Commits vs requests shows what group commit and its pacing saved (the benchmark reads it).
      logger.info('stopped; database closed', {
        produceCommits: appendQueue.stats.transactions,
        produceRequests: appendQueue.stats.requests,
      });
    })());
  return { host: config.listener.host, port, config, context, stop };
}
