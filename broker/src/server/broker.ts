// The broker: configuration, storage, coordinators, listeners and background tasks wired together
// in order (each part in its own module), with a clean stop.
import { GroupCoordinator } from '../groups/coordinator';
import { consumerCoordinatorOptions } from './settings/consumer-group-settings';
import { ShareGroups } from '../groups/share/share-groups';
import { shareGroupsOptions } from './settings/share-group-settings';
import { TransactionCoordinator } from '../transactions/coordinator';
import { AppendQueue } from './append-queue';
import { Authorizer } from './authorizer';
import { allowEveryoneIfNoAclFound } from './authorizer-defaults';
import { startBackgroundTasks } from './background-tasks';
import { openBrokerStorage } from './broker-storage';
import type { BrokerConfig } from './config';
import { Connection, ConnectionShared } from './connection';
import { admitUnauthenticated, LoginThrottle } from './sasl/login-throttle';
import type { SaslServices } from './sasl/sasl-authenticator';
import { ConnectionRegistry } from './connection-registry';
import type { BrokerContext } from './context';
import { FetchWaiters, partitionKey } from './fetch-waiters';
import { openCluster } from './cluster-setup';
import { createHandlers } from './handlers';
import { createLogger, Logger, WarningLimiter } from '../logger';
import { BrokerQuotas } from './quotas/broker-quotas';
import { RequestMemoryPool } from './request-memory-pool';
import { ResponseMemory } from './response-memory';
import type { KafkaPrincipal } from './session';
import { openListenerServers } from './listener-servers';
import { describeListeners, ResolvedListener, resolveListeners, usesSasl, usesTls } from './listeners';
import type { Session } from './session';
import { ReloadOutcome, TlsCertificates } from './tls-certificates';
import { describeCertificate } from './tls-material';
import { BrokerMetrics } from './metrics/broker-metrics';
import { MetricsServer, openMetricsServer } from './metrics/metrics-server';
import { ConfigOverrides, startConfig } from './start-config';

/** How long a stop waits for in-flight requests before closing connections anyway. */
const DRAIN_TIMEOUT_MS = 10_000;
/**
 * Longest a TLS client may take to finish its handshake (at most CONNECTIONS_MAX_IDLE_MS): one
 * that connects and says nothing holds a connection slot no longer than this. A handshake takes a
 * few round trips; Node's own default (120 s) would let a few hundred silent sockets fill
 * MAX_CONNECTIONS for two minutes.
 */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

export interface StartOptions {
  /** Overrides on top of the configuration read from `env`; the storage URL parsed or as text. */
  config?: ConfigOverrides;
  /** Environment to read (default: an empty one, so tests are not affected by the shell). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  now?: () => number;
  /**
   * Tests only, until SASL sets principals: the principal a connection gets from the client id of
   * its requests (undefined: it stays as it is). Never set by `minnow serve`.
   */
  testOnlyPrincipalForClientId?: (clientId: string | null) => KafkaPrincipal | undefined;
  /** Tests: sees each connection's session as it opens (its principal, listener). */
  onConnectionOpened?: (session: Session) => void;
}

export interface RunningBroker {
  /** The first listener's bound address (what single-listener callers and tests connect to). */
  host: string;
  port: number;
  /** Every listener, with its bound port. */
  listeners: readonly ResolvedListener[];
  /** The metrics endpoint's bound address (MINNOW_METRICS_LISTENER); undefined when it is off. */
  metricsEndpoint: { host: string; port: number } | undefined;
  config: BrokerConfig;
  context: BrokerContext;
  /** Reads the TLS files again now (SIGHUP); 'unchanged' without TLS listeners. */
  reloadTls(): ReloadOutcome;
  /** Stops accepting, answers in-flight requests, closes the database. */
  stop(): Promise<void>;
}

export async function startBroker(opts: StartOptions = {}): Promise<RunningBroker> {
  const config = startConfig(opts.env ?? {}, opts.config);
  const logger = opts.logger ?? createLogger(config.logLevel);
  const now = opts.now ?? Date.now;
  if (config.saslMaxFailuresPerAddress !== undefined)
    logger.warn(
      'MINNOW_SASL_MAX_FAILURES_PER_ADDRESS is deprecated and has no effect: failed logins no longer lock an address out (that refused the right passwords of everyone behind it); they are answered later and later instead, see MINNOW_SASL_FAILED_LOGIN_MAX_DELAY_MS and MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP. Remove the setting.',
      { value: config.saslMaxFailuresPerAddress },
    );
  const { storage, sqliteFile, diskSpace, identity: stored } = await openBrokerStorage(config, logger);
  const fetchWaiters = new FetchWaiters();
  // Several brokers on one postgres:// database (src/cluster): this broker's own node id, leases.
  let clusterSetup;
  try {
    clusterSetup = await openCluster(config, logger, fetchWaiters, stored.nodeId);
  } catch (err) {
    await storage.close();
    throw err;
  }
  const { cluster } = clusterSetup;
  clusterSetup.fenceStorage(storage);
  const identity = { ...stored, nodeId: cluster.nodeId };
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
    consumer: consumerCoordinatorOptions(config),
  });
  const shareGroups = new ShareGroups({
    storage,
    logger,
    now,
    ...shareGroupsOptions(config),
    fetchWaiters: {
      wait: (parts, ms) =>
        fetchWaiters.wait(
          parts.map((p) => partitionKey(p.topic, p.partition)),
          ms,
        ),
      notify: (topic, partition) => fetchWaiters.notify(partitionKey(topic, partition)),
    },
  });
  // Share groups' stored membership is loaded (and unloaded) with the other groups'.
  groups.attachShare(shareGroups.coordinator);
  // A share-partition lives on its partition's leader: one that moved away is read again from the
  // database by its new leader, and by this broker if it comes back.
  cluster.onChange(() => shareGroups.partitions.dropUnless((t, p) => cluster.leaderOf(t, p) === cluster.nodeId));
  // Markers written by EndTxn, a fencing InitProducerId or a timeout move the last stable offset:
  // read_committed fetches waiting on those partitions answer at once.
  const transactions = new TransactionCoordinator({
    storage,
    logger,
    now,
    groups,
    maxTimeoutMs: config.transactionMaxTimeoutMs,
    idExpirationMs: config.transactionalIdExpirationMs,
    cleanupIntervalMs: config.transactionCleanupIntervalMs,
    onMarked: (parts) => {
      for (const p of parts) fetchWaiters.notify(partitionKey(p.topic, p.partition));
    },
    onStorageError: (err) => {
      if (err.diskFull) diskSpace?.full();
    },
    owns: (transactionalId) => cluster.coordinatorOf('transaction', transactionalId).nodeId === cluster.nodeId,
  });
  // A group whose coordination moved to another broker: its members rejoin there.
  cluster.onCoordinatorLost((kind, key) => {
    if (kind === 'group') groups.unload(key);
  });
  const authorizer = await Authorizer.open(storage, {
    superUsers: config.superUsers,
    allowEveryoneIfNoAclFound: allowEveryoneIfNoAclFound(config),
  });
  const listeners = resolveListeners(config.listeners, config.advertisedListeners);
  const advertised = listeners[0]!.advertised;
  const quotas = new BrokerQuotas({ samples: config.quotaWindowNum, windowMs: config.quotaWindowSizeSeconds * 1000 });
  await quotas.reload(storage);
  // Another broker on the same postgres:// database changed ACLs or quotas: reload this broker's
  // copies (broker configs are read through a 1 s cache, SCRAM users at each login).
  clusterSetup.onSecurityChange((what) => {
    if (what === 'broker_config') {
      // Read them again now rather than after the engine's 1 s cache: a group's share.* configs
      // altered through another broker apply to the share fetches here at once (a share-partition
      // created meanwhile started at `latest` though the group said `earliest`).
      (storage as { security?: { invalidate?: () => void } }).security?.invalidate?.();
      shareGroups.configs.forgetAll();
    }
    const reload = what === 'acl' ? authorizer.reload() : what === 'quota' ? quotas.reload(storage) : undefined;
    reload?.catch((err: unknown) => logger.error('reloading after another broker changed them failed', { what, err }));
  });
  const context: BrokerContext = {
    config,
    storage,
    identity,
    advertised,
    listeners,
    logger,
    appendQueue,
    fetchWaiters,
    responseMemory: new ResponseMemory(config.fetchResponseMemoryBytes),
    groups,
    shareGroups,
    transactions,
    diskSpace,
    authorizer,
    quotas,
    cluster,
    // The start time as the features' epoch: a restart with another level is re-read by clients.
    features: { transactionVersion: config.transactionVersion, epoch: Date.now() },
    now,
  };
  const handlers = createHandlers();

  const warnings = new WarningLimiter(logger);
  const sasl: SaslServices = {
    mechanisms: config.saslMechanisms,
    lookup: (user, mechanism) => storage.scramCredential(user, mechanism),
    maxReauthMs: config.connectionsMaxReauthMs,
    throttle: new LoginThrottle({
      baseDelayMs: config.connectionFailedAuthenticationDelayMs,
      maxDelayMs: Math.max(config.saslFailedLoginMaxDelayMs, config.connectionFailedAuthenticationDelayMs),
      maxUnauthenticatedPerAddress: config.maxUnauthenticatedConnectionsPerIp,
    }),
    now,
    onFailure: (fields) => warnings.log('warn', 'SASL authentication failed', fields),
  };
  const shared: ConnectionShared = {
    pool: new RequestMemoryPool(config.queuedMaxRequestBytes),
    warnings,
    sasl,
    testOnlyPrincipalForClientId: opts.testOnlyPrincipalForClientId,
  };
  const registry = new ConnectionRegistry(config, logger, warnings, quotas.connections);
  const connections = registry.connections;
  // Counters exist only with the endpoint on: without it a request pays one undefined check.
  if (config.metricsListener) {
    context.metrics = new BrokerMetrics(
      {
        storage,
        dbPath: sqliteFile?.path,
        connections: () => connections.size,
        logins: sasl.throttle,
      },
      { apiKeys: [...handlers.keys()] },
    );
  }
  let nextConnectionId = 1;
  const hasTls = listeners.some((l) => usesTls(l.securityProtocol));
  /** A start-up failure after this point lets go of what was opened, the database (and its lock) last. */
  const releaseCore = async () => {
    registry.stop();
    groups.close();
    shareGroups.close();
    transactions.close();
    await cluster.stop();
    await storage.close();
  };
  let certificates: TlsCertificates | undefined;
  try {
    // Throws TlsMaterialError naming the file and what is wrong with it: start-up stops there.
    certificates = hasTls
      ? new TlsCertificates(
          {
            certFile: config.tlsCertFile!,
            keyFile: config.tlsKeyFile!,
            keyPasswordFile: config.tlsKeyPasswordFile,
            caFile: config.tlsCaFile,
          },
          logger,
        )
      : undefined;
  } catch (err) {
    await releaseCore();
    throw err;
  }
  const servers = await openListenerServers(
    listeners,
    {
      admit: (socket) => registry.admit(socket),
      open: (socket, listener, principal) => {
        if (usesSasl(listener.securityProtocol) && !admitUnauthenticated(sasl.throttle, socket, warnings)) return;
        const c = new Connection(socket, context, handlers, nextConnectionId++, shared, listener);
        if (principal) c.session.principal = principal; // mTLS, before the connection's first request
        registry.attach(socket, c);
        opts.onConnectionOpened?.(c.session);
      },
      handshakeFailed: (fields) => warnings.warn('TLS handshake failed; connection closed', fields, 'tls handshake'),
    },
    certificates && {
      certificates,
      clientAuth: config.tlsClientAuth,
      handshakeTimeoutMs: Math.min(TLS_HANDSHAKE_TIMEOUT_MS, config.connectionsMaxIdleMs),
    },
  ).catch(async (err) => {
    // Port taken, say: let go of the database (and its lock) before reporting it.
    certificates?.stop();
    await releaseCore();
    throw err;
  });
  let metricsServer: MetricsServer | undefined;
  if (context.metrics) {
    try {
      metricsServer = await openMetricsServer(config.metricsListener!, context.metrics, logger);
    } catch (err) {
      await servers.close();
      certificates?.stop();
      await releaseCore();
      throw err;
    }
  }
  try {
    // Registered once its addresses are known (port 0 bound): Metadata lists it from now on.
    await clusterSetup.join(listeners);
  } catch (err) {
    await metricsServer?.close();
    await servers.close();
    certificates?.stop();
    await releaseCore();
    throw err;
  }
  certificates?.watch(config.tlsReloadIntervalMs);
  const port = listeners[0]!.port;

  const tasks = startBackgroundTasks(context, cluster);

  logger.info('minnow broker listening', {
    listener: `${listeners[0]!.host}:${port}`,
    advertised: `${advertised.host}:${advertised.port}`,
    listeners: describeListeners(listeners),
    advertisedListeners: describeListeners(listeners.map((l) => ({ name: l.name, ...l.advertised }))),
    storage: config.storageUrl.url,
    clusterId: identity.clusterId,
    nodeId: identity.nodeId,
    apis: handlers.size,
    superUsers: config.superUsers.length,
    allowEveryoneIfNoAclFound: authorizer.allowEveryoneIfNoAclFound,
    acls: authorizer.acls().length,
    ...(metricsServer && { metrics: metricsUrl(metricsServer) }),
    ...(certificates && {
      tlsCertificate: describeCertificate(certificates.material.certificate),
      tlsClientAuth: config.tlsClientAuth,
    }),
  });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('stopping: no new connections, answering in-flight requests');
      const tasksStopped = tasks.stop();
      certificates?.stop();
      const closed = servers.close();
      const metricsClosed = metricsServer?.close();
      fetchWaiters.close();
      groups.close();
      shareGroups.close();
      transactions.close();
      // Leaving at once hands this broker's groups and partitions to the others (src/cluster).
      const left = cluster.stop();
      const drained = Promise.all([...connections].map((c) => c.drained()));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)))]);
      clearTimeout(timer);
      for (const c of connections) c.close();
      await closed;
      await metricsClosed;
      registry.stop();
      warnings.flush();
      await tasksStopped;
      await left;
      await groups.writesSettled(); // a rebalance that ended just now is stored (groups/group-persistence.ts)
      await shareGroups.writesSettled(); // and the share-partitions' last changes (groups/share/share-persistence.ts)
      await storage.close();
      // Commits vs requests shows what group commit and its pacing saved (the benchmark reads it).
      logger.info('stopped; database closed', {
        produceCommits: appendQueue.stats.transactions,
        produceRequests: appendQueue.stats.requests,
      });
    })());
  const reloadTls = () => certificates?.reload() ?? 'unchanged';
  const metricsEndpoint = metricsServer && { host: metricsServer.host, port: metricsServer.port };
  return { host: listeners[0]!.host, port, listeners, metricsEndpoint, config, context, reloadTls, stop };
}

/** `http://127.0.0.1:9464/metrics`, `http://[::1]:9464/metrics`: where to point a scraper. */
function metricsUrl(endpoint: { host: string; port: number }): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `http://${host}:${endpoint.port}/metrics`;
}
