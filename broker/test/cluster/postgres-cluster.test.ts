// PostgresCluster against a real PostgreSQL: leases, epochs, coordinator leases, self-fencing.
// Short leases keep it quick; waits are bounded loops, never timing assertions.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { CoordinatorKind } from '../../src/cluster/cluster';
import { coordinatorOf, PLACEMENT_VERSION } from '../../src/cluster/placement';
import { PostgresCluster, PostgresClusterOptions } from '../../src/cluster/postgres-cluster';
import { silentLogger } from '../../src/logger';
import { ErrorCode } from '../../src/protocol/error-codes';
import { createTestDatabase, describeWithPostgres, TestDatabase } from './test-database';

const LEASE_MS = 1_500;
const GROUPS = Array.from({ length: 1000 }, (_, i) => `g${i}`);
const HEARTBEAT_MS = 200;

describeWithPostgres('PostgresCluster', () => {
  let db: TestDatabase;
  let dir: string;
  const open: PostgresCluster[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('cluster_unit');
    dir = mkdtempSync(join(tmpdir(), 'minnow-cluster-'));
  });
  afterEach(async () => {
    for (const c of open.splice(0)) await c.stop();
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query('TRUNCATE cluster_broker, cluster_coordinator');
    await c.end();
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function broker(nodeId: number | undefined, extra: Partial<PostgresClusterOptions> = {}) {
    const c = await PostgresCluster.open({
      connection: { connectionString: db.url },
      nodeId,
      nodeIdFile: join(dir, `node-${nodeId ?? 'auto'}-${open.length}`),
      heartbeatMs: HEARTBEAT_MS,
      leaseMs: LEASE_MS,
      logger: silentLogger,
      ...extra,
    });
    open.push(c);
    await c.join([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + c.nodeId }]);
    return c;
  }

  async function until(what: string, cond: () => boolean | Promise<boolean>, tries = 100): Promise<void> {
    for (let i = 0; i < tries; i++) {
      if (await cond()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  /** A key `owner` coordinates among the live brokers. */
  function keyOwnedBy(c: PostgresCluster, owner: number, kind: CoordinatorKind = 'group'): string {
    for (let i = 0; i < 1000; i++) if (c.coordinatorOf(kind, `g${i}`).nodeId === owner) return `g${i}`;
    throw new Error(`no key for ${owner}`);
  }

  it('brokers see each other at one epoch and agree on leaders', async () => {
    const a = await broker(1);
    const b = await broker(2);
    await a.refresh();
    expect(a.view().brokers.map((n) => n.nodeId)).toEqual([1, 2]);
    expect(a.view()).toEqual(b.view());
    expect(a.view().brokers[1]!.endpoints).toEqual([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9002 }]);
    for (let p = 0; p < 8; p++) expect(a.leaderOf('t', p)).toBe(b.leaderOf('t', p));
    expect(new Set([0, 1, 2, 3].map((p) => a.leaderOf('t', p)))).toEqual(new Set([1, 2]));
  });

  it('tells the others of a join at once (NOTIFY), with a higher epoch', async () => {
    const a = await broker(1);
    const before = a.view().epoch;
    const seen: number[] = [];
    a.onChange((v) => seen.push(v.epoch));
    await broker(2);
    await until('a sees b', () => a.view().brokers.length === 2);
    expect(a.view().epoch).toBeGreaterThan(before);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('one broker coordinates a key; the other answers NOT_COORDINATOR', async () => {
    const a = await broker(1);
    const b = await broker(2);
    await a.refresh();
    const g = keyOwnedBy(a, 2);
    expect(await b.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
    expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NOT_COORDINATOR);
    // Held across renewals.
    await b.refresh();
    expect(await b.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
  });

  it('a clean stop hands its keys over at once', async () => {
    const a = await broker(1);
    const b = await broker(2);
    await a.refresh();
    const g = keyOwnedBy(a, 2);
    expect(await b.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
    const epoch = a.view().epoch;
    await b.stop();
    await until('a sees b leave', () => a.view().brokers.length === 1);
    expect(a.view().epoch).toBeGreaterThan(epoch);
    expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
  });

  it('a killed broker is removed when its lease ran out; its keys move after their leases', async () => {
    const a = await broker(1);
    const b = await broker(2);
    await a.refresh();
    const g = keyOwnedBy(a, 2, 'transaction');
    expect(await b.checkCoordinator('transaction', g)).toBe(ErrorCode.NONE);
    await b.abandon();
    expect(await a.checkCoordinator('transaction', g)).toBe(ErrorCode.NOT_COORDINATOR);
    await until('b expired', () => a.view().brokers.length === 1);
    await until('a takes the key', async () => (await a.checkCoordinator('transaction', g)) === ErrorCode.NONE);
  });

  it('a key that moves to a joining broker is given up by its old owner, then taken', async () => {
    const a = await broker(1);
    // A key the joining brokers take from a (rendezvous: what a keeps, it keeps).
    const four = [1, 2, 3, 4].map((nodeId) => ({ nodeId, rack: null, endpoints: [] }));
    const g = GROUPS.find((k) => coordinatorOf(four, k).nodeId !== 1)!;
    expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
    // A broker that joins and owns g by placement finds a's lease still there until a gives it back.
    const lost: string[] = [];
    a.onCoordinatorLost((_k, key) => lost.push(key));
    const others = [await broker(2), await broker(3), await broker(4)];
    await until('a sees all', () => a.view().brokers.length === 4);
    const owner = a.coordinatorOf('group', g).nodeId;
    expect(owner).not.toBe(1);
    expect(lost).toContain(g);
    const o = others.find((c) => c.nodeId === owner)!;
    await until('owner takes g', async () => (await o.checkCoordinator('group', g)) === ErrorCode.NONE);
  });

  it('fences itself when its renewal is late by its own clock', async () => {
    let now = 0;
    const a = await broker(1, { monotonicNow: () => now, heartbeatMs: 60_000 });
    const g = keyOwnedBy(a, 1);
    expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
    const lost: string[] = [];
    a.onCoordinatorLost((_k, key) => lost.push(key));
    now += LEASE_MS;
    expect(a.fenced).toBe(true);
    expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // The fence timer, armed for the lease's end (1.5 s of real time here), unloads what it held.
    // A renewal still under way (the one its own join announcement started: late on a busy
    // machine) may trust the lease again meanwhile; then the clock moves on once more.
    await until(
      'the fence drops the key',
      () => {
        if (!a.fenced) now += LEASE_MS;
        return lost.length > 0;
      },
      400,
    );
    expect(lost).toEqual([g]);
    await a.refresh(); // a renewal that works trusts the lease again
    expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
  });

  // Both lease-timing tests above and below failed now and then on CI (and were retried): the
  // renewal that a broker's own join announcement starts chose the keys to keep before the test
  // claimed one, then deleted the new row, and the broker judged the key lost (or a second process
  // found it free). A claim now waits for a renewal in flight.
  it('a key claimed while a renewal is in flight is neither deleted by it nor lost', async () => {
    const a = await broker(1, { heartbeatMs: 60_000 });
    const lost: string[] = [];
    a.onCoordinatorLost((_k, key) => lost.push(key));
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      for (let i = 0; i < 20; i++) {
        const g = `race-${i}`;
        if (a.coordinatorOf('group', g).nodeId !== 1) continue;
        const renewal = a.refresh();
        expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
        await renewal;
        const rows = await c.query('SELECT 1 FROM cluster_coordinator WHERE key = $1', [g]);
        expect({ g, rows: rows.rowCount }).toEqual({ g, rows: 1 });
      }
      await a.refresh();
      expect(lost).toEqual([]);
    } finally {
      await c.end();
    }
  });

  // lost-database.test.ts failed once: after the heal, broker 3 answered COORDINATOR_LOAD_IN_PROGRESS
  // for its group for good. Another broker's claim of that group, waiting on the renewal that
  // brought broker 3 back, took the key after that renewal had given back the keys moving away,
  // held it, and renewed it until the next epoch change.
  it('a claim that completes after the view moved its key away gives the key back', async () => {
    const a = await broker(1, { heartbeatMs: 60_000 });
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      // Node 2 joins without a word (no NOTIFY): only a's next renewal shows it.
      const two = [1, 2].map((nodeId) => ({ nodeId, rack: null, endpoints: [] }));
      const g = GROUPS.find((k) => a.coordinatorOf('group', k).nodeId === 1 && coordinatorOf(two, k).nodeId === 2)!;
      await c.query(
        `INSERT INTO cluster_broker (node_id, lease_until, incarnation, rack, endpoints, placement)
         VALUES (2, now() + interval '1 hour', gen_random_uuid(), NULL, '[]', $1)`,
        [PLACEMENT_VERSION],
      );
      await c.query('UPDATE cluster_state SET epoch = epoch + 1 WHERE id = 0');
      const renewal = a.refresh();
      await new Promise((r) => setImmediate(r)); // the renewal is under way; a's view is still [1]
      expect(a.view().brokers.map((b) => b.nodeId)).toEqual([1]);
      expect(await a.checkCoordinator('group', g)).toBe(ErrorCode.NOT_COORDINATOR);
      await renewal;
      await a.refresh();
      const rows = await c.query('SELECT node_id FROM cluster_coordinator WHERE key = $1', [g]);
      expect(rows.rows).toEqual([]);
    } finally {
      await c.end();
    }
  });

  it('after an outage of the database for all (every lease lapsed), the first back keeps the others', async () => {
    const a = await broker(1);
    const b = await broker(2);
    const dead = await broker(3);
    await a.refresh();
    const before = a.view();
    expect(before.brokers.map((n) => n.nodeId)).toEqual([1, 2, 3]);
    await dead.abandon(); // it died during the outage: never renews again
    // What PostgreSQL's clock says after the outage (a failover, a restart): every lease ran out.
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query(`UPDATE cluster_broker SET lease_until = now() - interval '1 second'`);
    await c.end();
    await a.refresh();
    await b.refresh();
    // Not one broker removed (each a new epoch, every key moved there and back): all got a lease.
    expect([a.view(), b.view()]).toEqual([before, before]);
    // The one that did not come back goes when that lease has run out, as any dead broker.
    await until('the dead broker removed', () => a.view().brokers.length === 2);
    expect(a.view().brokers.map((n) => n.nodeId)).toEqual([1, 2]);
  });

  it('a restarted broker with the same node id replaces the old process', async () => {
    // A lease long enough that it is still in force when the second process has started, even
    // on a loaded machine (with 1.5 s it had sometimes run out already).
    const leaseMs = 8_000;
    const old = await broker(5, { leaseMs });
    const g = keyOwnedBy(old, 5);
    expect(await old.checkCoordinator('group', g)).toBe(ErrorCode.NONE);
    const fresh = await broker(5, { leaseMs });
    // The old process's key lease is still in force: the new one waits for it.
    expect(await fresh.checkCoordinator('group', g)).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    await old.refresh();
    expect(await old.checkCoordinator('group', g)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    await until('fresh takes g', async () => (await fresh.checkCoordinator('group', g)) === ErrorCode.NONE, 400);
    expect(fresh.view().brokers.map((n) => n.nodeId)).toEqual([5]);
  });

  it('allocates node ids from 1001 once and keeps them in the node id file', async () => {
    const file = join(dir, 'generated');
    const a = await PostgresCluster.open({
      connection: { connectionString: db.url },
      nodeIdFile: file,
      logger: silentLogger,
    });
    expect(a.nodeId).toBeGreaterThanOrEqual(1001);
    expect(Number(readFileSync(file, 'utf8'))).toBe(a.nodeId);
    const again = await PostgresCluster.open({
      connection: { connectionString: db.url },
      nodeIdFile: file,
      logger: silentLogger,
    });
    expect(again.nodeId).toBe(a.nodeId);
    const other = await PostgresCluster.open({
      connection: { connectionString: db.url },
      nodeIdFile: join(dir, 'generated-2'),
      logger: silentLogger,
    });
    expect(other.nodeId).not.toBe(a.nodeId);
    for (const c of [a, again, other]) await c.stop();
  });

  it('delivers notifications of other channels (minnow_append) to their handlers', async () => {
    const c = await PostgresCluster.open({
      connection: { connectionString: db.url },
      nodeId: 9,
      nodeIdFile: join(dir, 'n9'),
      heartbeatMs: HEARTBEAT_MS,
      leaseMs: LEASE_MS,
      logger: silentLogger,
    });
    open.push(c);
    const got: string[] = [];
    c.listen('minnow_append', (p) => got.push(p));
    await c.join([{ name: 'PLAINTEXT', host: 'h', port: 1 }]);
    const n = new Client({ connectionString: db.url });
    await n.connect();
    await n.query(`SELECT pg_notify('minnow_append', 'hello')`);
    await n.end();
    await until('notified', () => got.length > 0);
    expect(got).toEqual(['hello']);
  });
});
