// The cluster's tables (docs/postgres.md "Several brokers"). Created here with IF NOT EXISTS under
// an advisory lock, so brokers starting together do not race on the catalog; independent of the
// storage engine's numbered migrations, which never touch these tables.
import type { PoolClient } from 'pg';

/** Kafka's first generated broker id is reserved.broker.max.id + 1 = 1001: NODE_IDs below stay free. */
export const FIRST_GENERATED_NODE_ID = 1001;

const SCHEMA_LOCK = 0x6d696e6e; // "minn": pg_advisory_xact_lock's key for this DDL

export const CLUSTER_SCHEMA = `
CREATE TABLE IF NOT EXISTS cluster_broker (
  node_id integer PRIMARY KEY,
  -- One per broker process: a restarted broker (same node id) takes the row over, and the old
  -- process, if it still runs, sees on its next renewal that it was replaced.
  incarnation uuid NOT NULL,
  rack text,
  endpoints jsonb NOT NULL,
  lease_until timestamptz NOT NULL,
  -- The newest placement formula the broker knows (cluster/placement.ts); all place by the lowest
  -- live one. The default is what a broker from before this column gets: formula 1.
  placement smallint NOT NULL DEFAULT 1
);
-- Added to a table made before the column; only then (ALTER TABLE's lock would queue renewals).
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute
                 WHERE attrelid = 'cluster_broker'::regclass AND attname = 'placement' AND NOT attisdropped) THEN
    ALTER TABLE cluster_broker ADD COLUMN placement smallint NOT NULL DEFAULT 1;
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS cluster_state (
  id smallint PRIMARY KEY CHECK (id = 0),
  -- Bumped with every change of cluster_broker's rows: the leader epoch in Metadata (KIP-320).
  epoch bigint NOT NULL
);
INSERT INTO cluster_state (id, epoch) VALUES (0, 0) ON CONFLICT (id) DO NOTHING;
CREATE TABLE IF NOT EXISTS cluster_coordinator (
  -- 0 = consumer group, 1 = transactional id (FindCoordinator's key types).
  kind smallint NOT NULL,
  key text NOT NULL,
  incarnation uuid NOT NULL,
  node_id integer NOT NULL,
  lease_until timestamptz NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX IF NOT EXISTS cluster_coordinator_incarnation ON cluster_coordinator (incarnation);
CREATE SEQUENCE IF NOT EXISTS cluster_node_id_seq START ${FIRST_GENERATED_NODE_ID};
`;

export async function ensureClusterSchema(client: PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(CLUSTER_SCHEMA);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
