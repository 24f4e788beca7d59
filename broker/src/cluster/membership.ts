// The broker table's statements: join, renew (and remove whoever's lease ran out), leave. Each
// is one transaction that ends by reading the epoch and the live set in one statement, so a view
// is a pure function of its epoch: two brokers at the same epoch see the same brokers.
// PostgreSQL's now() is the only clock a lease is measured by (docs/postgres.md).
// Group and transactional ids may hold U+0000, which PostgreSQL text refuses: escaped as the engine does.
import { escapeNul, unescapeNul } from '../storage/postgres/nul-escape';
import type { PoolClient } from 'pg';
import type { BrokerNode, ClusterView, CoordinatorKind, NamedEndpoint } from './cluster';
import { PLACEMENT_VERSION } from './placement';

/** The channel an epoch change is announced on, so other brokers re-read the view at once. */
export const CLUSTER_CHANNEL = 'minnow_cluster';

export const KIND_CODE: Record<CoordinatorKind, number> = { group: 0, transaction: 1 };
export const KIND_OF_CODE: readonly CoordinatorKind[] = ['group', 'transaction'];

export interface Registration {
  nodeId: number;
  incarnation: string;
  rack: string | null;
  endpoints: readonly NamedEndpoint[];
  leaseMs: number;
}

export interface RenewResult {
  view: ClusterView;
  /** False when another process registered this node id since: this one must stop acting. */
  replaced: boolean;
  /** Coordinator leases still held (renewed), as "kind/key". */
  held: Set<string>;
}

export const heldKey = (kind: CoordinatorKind, key: string) => `${KIND_CODE[kind]}/${key}`;

/** now() + the lease, the lease in ms being parameter $n. */
const lease = (n: number) => `now() + make_interval(secs => $${n}::double precision / 1000)`;

const READ_VIEW = `
SELECT s.epoch,
       coalesce((SELECT json_agg(json_build_object('nodeId', b.node_id, 'rack', b.rack, 'endpoints', b.endpoints)
                                 ORDER BY b.node_id)
                 FROM cluster_broker b), '[]'::json) AS brokers,
       (SELECT min(b.placement) FROM cluster_broker b) AS placement
FROM cluster_state s WHERE s.id = 0`;

async function inTransaction<T>(client: PoolClient, body: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    // Membership changes take turns: a renewal locks its own row, then deletes (or extends) the
    // others'; two of them at once (every broker back from a database outage) would deadlock.
    await client.query(`SELECT 1 FROM cluster_state WHERE id = 0 FOR UPDATE`);
    const out = await body();
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

async function readView(client: PoolClient): Promise<ClusterView> {
  const r = await client.query<{ epoch: string; brokers: BrokerNode[]; placement: number | null }>(READ_VIEW);
  const row = r.rows[0]!;
  const view: ClusterView = { epoch: Number(row.epoch), brokers: row.brokers };
  if (row.placement !== null) view.placement = row.placement;
  return view;
}

/** Removes expired brokers (by whoever sees them first); their node ids. */
async function removeExpired(client: PoolClient): Promise<number[]> {
  const r = await client.query<{ node_id: number }>(
    `DELETE FROM cluster_broker WHERE lease_until < now() RETURNING node_id`,
  );
  return r.rows.map((x) => x.node_id);
}

/** Every lapsed broker row gets a new lease (nothing in the view changes: no new epoch). */
async function extendLapsed(client: PoolClient, leaseMs: number): Promise<void> {
  await client.query(`UPDATE cluster_broker SET lease_until = ${lease(1)} WHERE lease_until < now()`, [leaseMs]);
}

async function bumpEpoch(client: PoolClient): Promise<void> {
  const r = await client.query<{ epoch: string }>(
    `UPDATE cluster_state SET epoch = epoch + 1 WHERE id = 0 RETURNING epoch`,
  );
  // Delivered at commit; a payload-less wake-up is enough, the listeners re-read the view.
  await client.query(`SELECT pg_notify($1, $2)`, [CLUSTER_CHANNEL, r.rows[0]!.epoch]);
}

async function upsert(client: PoolClient, reg: Registration): Promise<void> {
  await client.query(
    `INSERT INTO cluster_broker (node_id, lease_until, incarnation, rack, endpoints, placement)
     VALUES ($1, ${lease(2)}, $3, $4, $5, $6)
     ON CONFLICT (node_id) DO UPDATE SET incarnation = excluded.incarnation, rack = excluded.rack,
       endpoints = excluded.endpoints, lease_until = excluded.lease_until, placement = excluded.placement`,
    [reg.nodeId, reg.leaseMs, reg.incarnation, reg.rack, JSON.stringify(reg.endpoints), PLACEMENT_VERSION],
  );
}

/** Registers (or re-registers) this broker: always a new epoch. */
export function join(client: PoolClient, reg: Registration): Promise<ClusterView> {
  return inTransaction(client, async () => {
    await removeExpired(client);
    await upsert(client, reg);
    await bumpEpoch(client);
    return readView(client);
  });
}

/**
 * Renews this broker's lease and its coordinator leases in `keep` (dropping its other coordinator
 * rows: keys it released), removes expired brokers, and reads the view. A broker whose row was
 * removed (its lease ran out while it could not reach the database) joins again.
 */
export function renew(client: PoolClient, reg: Registration, keep: readonly string[]): Promise<RenewResult> {
  return inTransaction(client, async () => {
    const mine = await client.query<{ incarnation: string; lapsed: boolean }>(
      `SELECT incarnation, lease_until < now() AS lapsed FROM cluster_broker WHERE node_id = $1 FOR UPDATE`,
      [reg.nodeId],
    );
    const row = mine.rows[0];
    if (row && row.incarnation !== reg.incarnation) {
      return { view: await readView(client), replaced: true, held: new Set<string>() };
    }
    // Our row outlived its lease: nobody renewed since (every renewal removes expired rows), so the
    // database was out of reach for all (a failover, a restart). The others' lapsed leases then say
    // nothing about them: they get a lease to come back in, instead of the first broker back
    // removing all the others (a new epoch each, every leader and group moved there and back).
    if (row?.lapsed) await extendLapsed(client, reg.leaseMs);
    const removed = await removeExpired(client);
    let changed = removed.length > 0;
    if (row && !removed.includes(reg.nodeId)) {
      await client.query(`UPDATE cluster_broker SET lease_until = ${lease(2)} WHERE node_id = $1`, [
        reg.nodeId,
        reg.leaseMs,
      ]);
    } else {
      await upsert(client, reg);
      changed = true;
    }
    if (changed) await bumpEpoch(client);
    await client.query(
      `DELETE FROM cluster_coordinator WHERE incarnation = $1 AND NOT ((kind::text || '/' || key) = ANY($2::text[]))`,
      [reg.incarnation, keep.map(escapeNul)],
    );
    const renewed = await client.query<{ k: string }>(
      `UPDATE cluster_coordinator SET lease_until = ${lease(2)}
       WHERE incarnation = $1 RETURNING kind::text || '/' || key AS k`,
      [reg.incarnation, reg.leaseMs],
    );
    return {
      view: await readView(client),
      replaced: false,
      held: new Set(renewed.rows.map((r) => unescapeNul(r.k))),
    };
  });
}

/** A clean stop: the row and the coordinator leases go now, so the others take over at once. */
export function leave(client: PoolClient, reg: Registration): Promise<void> {
  return inTransaction(client, async () => {
    await client.query(`DELETE FROM cluster_coordinator WHERE incarnation = $1`, [reg.incarnation]);
    const r = await client.query(`DELETE FROM cluster_broker WHERE node_id = $1 AND incarnation = $2`, [
      reg.nodeId,
      reg.incarnation,
    ]);
    if ((r.rowCount ?? 0) > 0) await bumpEpoch(client);
  });
}

/** Takes the key's coordinator lease if it is free, expired, or already this incarnation's. */
export async function claim(
  client: PoolClient,
  reg: Registration,
  kind: CoordinatorKind,
  key: string,
): Promise<boolean> {
  const r = await client.query(
    `INSERT INTO cluster_coordinator AS c (kind, key, lease_until, incarnation, node_id)
     VALUES ($3, $4, ${lease(5)}, $1, $2)
     ON CONFLICT (kind, key) DO UPDATE SET incarnation = excluded.incarnation, node_id = excluded.node_id,
       lease_until = excluded.lease_until
     WHERE c.incarnation = excluded.incarnation OR c.lease_until < now()
     RETURNING 1`,
    [reg.incarnation, reg.nodeId, KIND_CODE[kind], escapeNul(key), reg.leaseMs],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Gives a key's lease back (it moved to another broker), so its new owner need not wait. */
export async function release(
  client: PoolClient,
  reg: Registration,
  kind: CoordinatorKind,
  key: string,
): Promise<void> {
  await client.query(`DELETE FROM cluster_coordinator WHERE incarnation = $1 AND kind = $2 AND key = $3`, [
    reg.incarnation,
    KIND_CODE[kind],
    escapeNul(key),
  ]);
}
