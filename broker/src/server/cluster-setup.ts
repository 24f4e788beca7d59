// Which Cluster a broker is part of (src/cluster): a postgres:// database is shared by every broker
// pointed at it (PostgresCluster: leases, placement, LISTEN); sqlite:// and memory:// have one
// broker (SingleNode). Appends by other brokers reach this broker's fetch waiters by NOTIFY.
import { type Cluster, LeaseLapsedError, type NamedEndpoint } from '../cluster/cluster';
import { PostgresCluster } from '../cluster/postgres-cluster';
import { SingleNode } from '../cluster/single-node';
import type { Logger } from '../logger';
import { Db } from '../storage/postgres/db';
import { APPEND_CHANNEL, parseAppendNotice } from '../storage/postgres/log-writes';
import { parseSecurityNotice, SECURITY_CHANNEL } from '../storage/postgres/security';
import type { SecurityChange } from '../storage/postgres/security';
import { postgresPoolConfig } from '../storage/postgres/url';
import type { AsyncStorage } from '../storage/storage';
import type { BrokerConfig } from './config';
import { FetchWaiters, partitionKey } from './fetch-waiters';
import type { ResolvedListener } from './listeners';

export interface ClusterSetup {
  /** cluster.nodeId is this broker's node id (postgres://: its own, not the database's stored one). */
  cluster: Cluster;
  /** Registers the broker with its advertised addresses, once its listeners are bound. */
  join(listeners: readonly ResolvedListener[]): Promise<void>;
  /**
   * Calls `handler` when another broker changed ACLs, quotas, SCRAM users or broker configs
   * (NOTIFY minnow_security, postgres/security.ts), and with every kind after the LISTEN connection
   * came back (notices may have been missed). Register before join(); a no-op with one broker.
   */
  onSecurityChange(handler: (what: SecurityChange) => void): void;
  /**
   * postgres://: while this broker's lease has lapsed (it could not renew: PostgreSQL out of
   * reach), `storage` refuses every call at once with a retriable StorageError, and at the lapse
   * its connections in use are dropped, so requests are answered (retriable codes) within the
   * lease instead of waiting on a black-holed connection; clients move to the other brokers.
   */
  fenceStorage(storage: AsyncStorage): void;
}

/** `storedNodeId`: the storage's identity, the one broker's id on sqlite:// and memory://. */
export async function openCluster(
  config: BrokerConfig,
  logger: Logger,
  fetchWaiters: FetchWaiters,
  storedNodeId: number,
): Promise<ClusterSetup> {
  const target = config.storageUrl;
  if (target.kind !== 'postgres') {
    // Its own address is always answered from the request's listener (cluster-answers.ts).
    return {
      cluster: new SingleNode(storedNodeId, []),
      join: () => Promise.resolve(),
      onSecurityChange: () => {},
      fenceStorage: () => {},
    };
  }
  const cluster = await PostgresCluster.open({
    connection: postgresPoolConfig(target.connectionString).config,
    nodeId: config.nodeId,
    nodeIdFile: config.nodeIdFile,
    heartbeatMs: config.brokerHeartbeatMs,
    leaseMs: config.brokerLeaseMs,
    logger,
  });
  cluster.listen(APPEND_CHANNEL, (payload) => {
    const notice = parseAppendNotice(payload);
    if (notice) fetchWaiters.notify(partitionKey(notice.topic, notice.partition));
  });
  // Appends announced while the LISTEN connection was away are lost: every waiter looks again.
  cluster.onListenReconnect(() => fetchWaiters.wakeAll());
  const onSecurityChange = (handler: (what: SecurityChange) => void) => {
    cluster.listen(SECURITY_CHANNEL, (payload) => {
      const what = parseSecurityNotice(payload);
      if (what) handler(what);
    });
    cluster.onListenReconnect(() => {
      for (const what of ['acl', 'quota', 'scram', 'broker_config'] as const) handler(what);
    });
  };
  const fenceStorage = (storage: AsyncStorage) => {
    const db = (storage as { db?: unknown }).db;
    if (!(db instanceof Db)) return;
    db.refuseWhile(() => (cluster.lapsed ? new LeaseLapsedError() : undefined));
    cluster.onLapse(() => db.dropConnections());
  };
  return { cluster, join: (listeners) => cluster.join(endpoints(listeners)), onSecurityChange, fenceStorage };
}

function endpoints(listeners: readonly ResolvedListener[]): NamedEndpoint[] {
  return listeners.map((l) => ({ name: l.name, host: l.advertised.host, port: l.advertised.port }));
}
