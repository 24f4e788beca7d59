// Brokers of two minnow versions on one database, as during a rolling update (cluster/placement.ts):
// each records the newest placement formula it knows, and all place by the lowest live one, so
// Metadata and FindCoordinator never disagree between brokers. The older broker is played by its
// own SQL: the INSERT of a broker from before the placement column.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import type { BrokerNode } from '../../src/cluster/cluster';
import { coordinatorOf, leaderOf, PLACEMENT_MOD_N, PLACEMENT_RENDEZVOUS } from '../../src/cluster/placement';
import { PostgresCluster } from '../../src/cluster/postgres-cluster';
import { ensureClusterSchema } from '../../src/cluster/schema';
import { silentLogger } from '../../src/logger';
import { createTestDatabase, describeWithPostgres, TestDatabase } from './test-database';

const TOPICS = ['orders', 'spread', 'load', 't'];
const GROUPS = Array.from({ length: 20 }, (_, i) => `g${i}`);

describeWithPostgres('placement across broker versions', () => {
  let db: TestDatabase;
  let dir: string;
  let sql: Client;
  const open: PostgresCluster[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('placement_versions');
    dir = mkdtempSync(join(tmpdir(), 'minnow-placement-'));
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterEach(async () => {
    for (const c of open.splice(0)) await c.stop();
    await sql.query('TRUNCATE cluster_broker, cluster_coordinator');
  });
  afterAll(async () => {
    await sql.end();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function broker(nodeId: number): Promise<PostgresCluster> {
    const c = await PostgresCluster.open({
      connection: { connectionString: db.url },
      nodeId,
      nodeIdFile: join(dir, `node-${nodeId}-${open.length}`),
      heartbeatMs: 200,
      leaseMs: 1_500,
      logger: silentLogger,
    });
    open.push(c);
    await c.join([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + nodeId }]);
    return c;
  }

  /** Registers, leaves and announces as a broker from before the placement column does. */
  async function oldBroker(nodeId: number, action: 'join' | 'leave'): Promise<void> {
    await sql.query('BEGIN');
    if (action === 'join') {
      await sql.query(
        `INSERT INTO cluster_broker (node_id, lease_until, incarnation, rack, endpoints)
         VALUES ($1, now() + interval '1 hour', $2, NULL, $3)`,
        [nodeId, randomUUID(), JSON.stringify([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + nodeId }])],
      );
    } else {
      await sql.query('DELETE FROM cluster_broker WHERE node_id = $1', [nodeId]);
    }
    const r = await sql.query<{ epoch: string }>('UPDATE cluster_state SET epoch = epoch + 1 RETURNING epoch');
    await sql.query(`SELECT pg_notify('minnow_cluster', $1)`, [r.rows[0]!.epoch]);
    await sql.query('COMMIT');
  }

  async function until(what: string, cond: () => boolean): Promise<void> {
    for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!cond()) throw new Error(`timed out waiting for ${what}`);
  }

  /** Every leader and coordinator `c` names equals `version`'s over its live set. */
  function expectPlacedBy(c: PostgresCluster, version: number): void {
    const brokers: readonly BrokerNode[] = c.view().brokers;
    const placed = (leader: (t: string, p: number) => number, coordinator: (g: string) => number) => [
      ...TOPICS.flatMap((t) => [0, 1, 2, 3, 4, 5].map((p) => leader(t, p))),
      ...GROUPS.map(coordinator),
    ];
    expect(placed(c.leaderOf.bind(c), (g) => c.coordinatorOf('group', g).nodeId)).toEqual(
      placed(
        (t, p) => leaderOf(brokers, t, p, version).nodeId,
        (g) => coordinatorOf(brokers, g, version).nodeId,
      ),
    );
  }

  it('adds the column to a database from before it: a live older broker counts as formula 1 until it leaves', async () => {
    const pool = new Pool({ connectionString: db.url, max: 1 });
    const client = await pool.connect();
    await ensureClusterSchema(client);
    client.release();
    await pool.end();
    await sql.query('ALTER TABLE cluster_broker DROP COLUMN placement');
    await oldBroker(2, 'join');

    const a = await broker(1);
    expect(a.view().brokers.map((b) => b.nodeId)).toEqual([1, 2]);
    expect(a.view().placement).toBe(PLACEMENT_MOD_N);
    expectPlacedBy(a, PLACEMENT_MOD_N);

    await oldBroker(2, 'leave');
    await until('a sees the older broker leave', () => a.view().brokers.length === 1);
    expect(a.view().placement).toBe(PLACEMENT_RENDEZVOUS);
    expectPlacedBy(a, PLACEMENT_RENDEZVOUS);
  });

  it('an older broker joining newer ones turns every broker back to formula 1 while it lives', async () => {
    const a = await broker(1);
    const b = await broker(2);
    await a.refresh();
    expect(a.view().placement).toBe(PLACEMENT_RENDEZVOUS);

    await oldBroker(3, 'join');
    await until('both see the older broker', () => a.view().brokers.length === 3 && b.view().brokers.length === 3);
    expect(a.view()).toEqual(b.view());
    expect(a.view().placement).toBe(PLACEMENT_MOD_N);
    // What the older broker itself names, by its formula over the same live set.
    expectPlacedBy(a, PLACEMENT_MOD_N);
    expectPlacedBy(b, PLACEMENT_MOD_N);

    await oldBroker(3, 'leave');
    await until('both see it leave', () => a.view().brokers.length === 2 && b.view().brokers.length === 2);
    expect(b.view().placement).toBe(PLACEMENT_RENDEZVOUS);
    expectPlacedBy(b, PLACEMENT_RENDEZVOUS);
  });
});
