// The LISTEN connection (src/cluster/notification-listener.ts) after a database failover: its
// reconnect attempt may reach an address that accepts and never answers (the old primary, a black
// hole). Without a connection timeout that attempt waits for ever, and no reconnect follows it:
// no notification (other brokers' appends, epochs, ACL changes) would arrive again.
import { Client } from 'pg';
import { NotificationListener } from '../../src/cluster/notification-listener';
import { silentLogger } from '../../src/logger';
import { TcpProxy } from './tcp-proxy';
import { createTestDatabase, describeWithPostgres, type TestDatabase } from './test-database';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeWithPostgres('NotificationListener', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('listener');
  });
  afterAll(() => db.drop());

  it('listens again after a reconnect attempt that was never answered', async () => {
    const { proxy, url } = await TcpProxy.forUrl(db.url);
    const got: string[] = [];
    const listener = new NotificationListener(
      { connectionString: url },
      { channels: { minnow_test: (p) => got.push(p) } },
      silentLogger,
    );
    const notify = async (payload: string) => {
      const c = new Client({ connectionString: db.url });
      await c.connect();
      await c.query(`SELECT pg_notify('minnow_test', $1)`, [payload]);
      await c.end();
    };
    try {
      await listener.start();
      // The connection is reset, and the reconnect (100 ms later) meets a black hole that stays one.
      proxy.cut();
      proxy.blackHole();
      await sleep(1_000);
      proxy.heal('silent');
      for (let i = 0; i < 150 && !got.includes('back'); i++) {
        await notify('back');
        await sleep(200);
      }
      expect(got).toContain('back');
    } finally {
      await listener.stop();
      await proxy.stop();
    }
  }, 60_000);
});
