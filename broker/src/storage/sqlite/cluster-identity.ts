// The cluster id and node id of a sqlite:// database: stored on first open (one row), so clients
// keep working after restarts and moves.
import type Database from 'better-sqlite3';
import { randomUuid } from '../../protocol/uuid';
import type { ClusterIdentity } from '../storage';

export class ClusterIdentityStore {
  private cached: ClusterIdentity | undefined;

  constructor(private readonly db: Database.Database) {}

  /** The stored identity, or `wanted`'s (defaults: a random cluster id, node 1) stored now. */
  get(wanted: Partial<ClusterIdentity>): ClusterIdentity {
    // Not through the Transactor: no cache to undo, and a broker that only starts up (one tiny
    // write on a new file) should not wake the checkpointer thread.
    const identity = (this.cached ??= this.db
      .transaction(() => {
        const row = this.db
          .prepare('SELECT cluster_id AS clusterId, node_id AS nodeId FROM cluster WHERE id = 1')
          .get() as ClusterIdentity | undefined;
        if (row) return row;
        const created = { clusterId: wanted.clusterId ?? randomUuid(), nodeId: wanted.nodeId ?? 1 };
        this.db
          .prepare('INSERT INTO cluster (id, cluster_id, node_id) VALUES (1, ?, ?)')
          .run(created.clusterId, created.nodeId);
        return created;
      })
      .immediate());
    return { ...identity };
  }
}
