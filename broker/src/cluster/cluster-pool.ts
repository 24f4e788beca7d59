// The connection pool of a broker's cluster membership (postgres-cluster.ts): two connections whose
// every wait is bounded below the lease. A renewal is a transaction that starts by locking the
// cluster_state row (membership.ts): if the route to the database is lost between its statements
// (a black hole: no RST, no FIN), PostgreSQL would keep that lock for as long as TCP takes to give
// up, and every other broker's renewal would wait on it until all their leases ran out. So the server
// ends such a session, and any statement, after the same bounded wait the client applies.
import type { PoolConfig } from 'pg';

export function clusterPoolConfig(connection: PoolConfig, heartbeatMs: number): PoolConfig {
  // A renewal stuck longer than two heartbeats is useless anyway (the lease is running out).
  const waitMs = 2 * heartbeatMs;
  return {
    connectionTimeoutMillis: waitMs,
    query_timeout: waitMs,
    statement_timeout: waitMs,
    idle_in_transaction_session_timeout: waitMs,
    ...connection,
    max: 2,
  };
}
