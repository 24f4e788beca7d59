// The cluster membership's connections are bounded on the server's side too (cluster-pool.ts): a
// renewal cut off between its statements (a black hole) must not keep the cluster_state row lock
// for as long as TCP takes to give up, or every broker's renewal waits on it and all leases lapse.
import { Client } from 'pg';
import { clusterPoolConfig } from '../../src/cluster/cluster-pool';
import { createTestDatabase, describeWithPostgres, TestDatabase } from './test-database';

const HEARTBEAT_MS = 250; // bounded waits of 500 ms

describeWithPostgres('the cluster membership pool', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('cluster_pool');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('ends a session left idle inside a transaction, and with it the row lock it held', async () => {
    const config = clusterPoolConfig({ connectionString: db.url }, HEARTBEAT_MS);
    const setup = new Client({ connectionString: db.url });
    await setup.connect();
    await setup.query('CREATE TABLE held (id int PRIMARY KEY)');
    await setup.query('INSERT INTO held VALUES (1)');
    const stuck = new Client(config);
    stuck.on('error', () => {}); // the server ends it: that is the point
    await stuck.connect();
    expect((await stuck.query('SHOW idle_in_transaction_session_timeout')).rows[0]).toEqual({
      idle_in_transaction_session_timeout: '500ms',
    });
    expect((await stuck.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: '500ms' });
    // A renewal's first step, then silence (the client's next statement never arrives).
    await stuck.query('BEGIN');
    await stuck.query('SELECT id FROM held WHERE id = 1 FOR UPDATE');
    // Another broker's renewal takes the same lock: it gets it once the server ended the silent
    // session (without the setting it would wait for ever; the client's own bound ends it first).
    const other = new Client({ connectionString: db.url, query_timeout: 20_000 });
    await other.connect();
    await other.query('BEGIN');
    const locked = await other.query('SELECT id FROM held WHERE id = 1 FOR UPDATE');
    expect(locked.rows).toEqual([{ id: 1 }]);
    await other.query('COMMIT');
    await other.end();
    await expect(stuck.query('SELECT 1')).rejects.toThrow();
    await stuck.end().catch(() => {});
    await setup.query('DROP TABLE held');
    await setup.end();
  }, 30_000);
});
