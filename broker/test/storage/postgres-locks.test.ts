// The postgres:// engine's lock order (docs/postgres.md, "Lock order"): which row locks its writers
// take and in which order, deadlocks retried, and fetches over logs of many tiny batches. A real
// PostgreSQL from test/support/postgres-server.ts (MINNOW_TEST_PG_URL, else a private one).
import { Client } from 'pg';
import { ErrorCode } from '../../src/protocol/error-codes';
import { Db, retriable, TX_ATTEMPTS } from '../../src/storage/postgres/db';
import { lockPartitions } from '../../src/storage/postgres/log-writes';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import { StorageError } from '../../src/storage/storage';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { baseOffsets, batch, NOW_MS, part } from './fixtures';

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresServer();
});
afterAll(async () => {
  await server.stop();
}, 120_000);

/** Raises `sqlstate` from the server, as PostgreSQL reports a deadlock victim. */
const raise = (sqlstate: string) => `DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = '${sqlstate}'; END $$`;

describeWithTools('postgresql')('postgres engine: locks', () => {
  let dbUrl: string;
  let storage: PostgresStorage;
  const clients: Client[] = [];
  const client = async () => {
    const c = new Client({ connectionString: dbUrl });
    await c.connect();
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    dbUrl = await server.createDatabase('pgfix_locks');
    storage = await PostgresStorage.open(dbUrl);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end()));
    await storage.close();
    await server.dropDatabase(dbUrl);
  });

  /** Waits (bounded) until some session of this database waits for a row lock. */
  async function someoneWaitsForALock(c: Client): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0]!.n > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no session ever waited for a lock');
  }

  it("an append's partition lock lets inserts referencing the partition through (FOR NO KEY UPDATE)", async () => {
    await storage.createTopic('t', 1, {});
    const c = await client();
    // Bounds the wait: with FOR UPDATE the inserts below would wait for the holder and fail (55P03).
    await c.query("SET lock_timeout = '3s'");
    const { rows } = await c.query<{ id: string }>('SELECT id FROM partition');
    const id = rows[0]!.id;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = storage.db.tx(async (q) => {
      await lockPartitions(q, [{ topic: 't', partition: 0 }]);
      locked();
      await released;
    });
    await isLocked;
    try {
      // What AddPartitionsToTxn, the cleaner's checkpoint and other brokers' producer states insert.
      await c.query('INSERT INTO open_txn (partition_id, producer_id, first_offset) VALUES ($1, 7, 0)', [id]);
      await c.query(
        `INSERT INTO log_cleaner (partition_id, clean_offset, last_cleaned_ms, bytes_before, bytes_after)
         VALUES ($1, 0, 0, 0, 0)`,
        [id],
      );
    } finally {
      release();
      await holder;
    }
    // Appends still serialize on the row: it is locked against the other lockers.
    const other = await client();
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM partition WHERE id = $1 FOR NO KEY UPDATE', [id]);
    const append = storage.append([part('t', 0, [batch()])], NOW_MS);
    await someoneWaitsForALock(c);
    await other.query('COMMIT');
    expect((await append)[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('OffsetCommit locks its rows in (group, topic, partition) order whatever the request order', async () => {
    await storage.createTopic('a', 1, {});
    await storage.createTopic('b', 1, {});
    const offset = (topic: string, value: number) => ({
      topic,
      partition: 0,
      offset: value,
      leaderEpoch: -1,
      metadata: '',
    });
    await storage.commitOffsets('g', [offset('a', 1), offset('b', 1)], NOW_MS);
    const holder = await client();
    await holder.query('BEGIN');
    await holder.query("SELECT 1 FROM group_offset WHERE group_id = 'g' AND topic = 'b' FOR UPDATE");
    // Named b first: sorted, the commit locks a's row, then waits for b's.
    const commit = storage.commitOffsets('g', [offset('b', 2), offset('a', 2)], NOW_MS);
    const probe = await client();
    await someoneWaitsForALock(probe);
    await expect(
      probe.query("SELECT 1 FROM group_offset WHERE group_id = 'g' AND topic = 'a' FOR UPDATE NOWAIT"),
    ).rejects.toMatchObject({ code: '55P03' });
    await holder.query('COMMIT');
    await commit;
    expect((await storage.fetchOffsets('g')).map((o) => [o.topic, o.offset])).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
  });

  it('OffsetCommits and EndTxns of two brokers writing the same offsets in opposite orders all succeed', async () => {
    const other = await PostgresStorage.open(dbUrl);
    try {
      const topics = ['a', 'B', 'c', 'D', 'e'];
      for (const t of topics) await storage.createTopic(t, 2, {});
      const rows = topics.flatMap((topic) => [0, 1].map((partition) => ({ topic, partition })));
      const offsets = (order: typeof rows, value: number) =>
        order.map((r) => ({ ...r, offset: value, leaderEpoch: -1, metadata: '' }));
      const reversed = [...rows].reverse();
      const ids = ['x', 'y', 'z'];
      for (const id of ids) await other.initTransaction(id, 60_000, NOW_MS);
      const txn = async (id: string, i: number) => {
        await other.addToTransaction(id, [], ['g'], NOW_MS);
        await other.commitTransactionalOffsets(id, 'g', offsets(i % 2 ? rows : reversed, 1000 + i), NOW_MS);
        await other.endTransaction(id, true, NOW_MS);
      };
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        const s = i % 2 ? storage : other;
        work.push(s.commitOffsets('g', offsets(i % 3 ? rows : reversed, i), NOW_MS));
      }
      for (const [k, id] of ids.entries())
        work.push(
          (async () => {
            for (let i = 0; i < 5; i++) await txn(id, k * 10 + i);
          })(),
        );
      const failures = (await Promise.allSettled(work)).filter((r) => r.status === 'rejected');
      expect(failures).toEqual([]);
      expect(await storage.fetchOffsets('g')).toHaveLength(rows.length);
    } finally {
      await other.close();
    }
  });

  it('two brokers creating and deleting the same ACLs in opposite orders all succeed', async () => {
    const other = await PostgresStorage.open(dbUrl);
    try {
      const bindings = Array.from({ length: 20 }, (_, i) => ({
        resourceType: 'TOPIC' as const,
        resourceName: `t${i}`,
        patternType: 'LITERAL' as const,
        principal: 'User:alice',
        host: '*',
        operation: 'READ' as const,
        permissionType: 'ALLOW' as const,
      }));
      const reversed = [...bindings].reverse();
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        const s = i % 2 ? storage : other;
        const list = i % 2 ? bindings : reversed;
        work.push(i % 4 === 3 ? s.deleteAcls(list) : s.createAcls(list));
      }
      const failures = (await Promise.allSettled(work)).filter((r) => r.status === 'rejected');
      expect(failures).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('runs a transaction PostgreSQL rolled back for a deadlock or serialization failure again', async () => {
    const db = new Db({ connectionString: dbUrl }, { max: 2 });
    try {
      for (const sqlstate of ['40P01', '40001']) {
        let attempts = 0;
        const result = await db.tx(async (q) => {
          attempts++;
          if (attempts === 1) await q.query(raise(sqlstate));
          return attempts;
        });
        expect(result).toBe(2);
      }
      // Still failing after the last attempt: a retriable StorageError (the client retries).
      let attempts = 0;
      const err = await db
        .tx(async (q) => {
          attempts++;
          await q.query(raise('40P01'));
        })
        .catch((e: unknown) => e);
      expect(attempts).toBe(TX_ATTEMPTS);
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).code).toBe('40P01');
      expect(retriable(err)).toBe(true);
      // Other failures are not run again.
      attempts = 0;
      await expect(
        db.tx(async (q) => {
          attempts++;
          await q.query(raise('23505'));
        }),
      ).rejects.toBeInstanceOf(StorageError);
      expect(attempts).toBe(1);
      await expect(db.query(raise('40P01'))).rejects.toMatchObject({ code: '40P01' });
    } finally {
      await db.close();
    }
  });

  it('a consumer with a large max_bytes over thousands of tiny batches gets every batch, in order', async () => {
    await storage.createTopic('t', 1, {});
    const total = 2500;
    for (let from = 0; from < total; from += 500)
      await storage.append(
        [
          part(
            't',
            0,
            Array.from({ length: 500 }, () => batch({ valueBytes: 1 })),
          ),
        ],
        NOW_MS,
      );
    const seen: number[] = [];
    let offset = 0;
    for (let fetches = 0; offset < total && fetches < 50; fetches++) {
      const r = await storage.read('t', 0, offset, 50 * 1024 * 1024);
      expect(r.errorCode).toBe(ErrorCode.NONE);
      expect(r.batches.length).toBeGreaterThan(0); // progress every fetch
      const bases = baseOffsets(r.batches);
      expect(bases[0]).toBe(offset);
      seen.push(...bases);
      offset = bases[bases.length - 1]! + 1;
    }
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  it('KIP-74: the first batch even when larger than max_bytes, then only whole batches that fit', async () => {
    await storage.createTopic('t', 1, {});
    const big = batch({ records: 3, valueBytes: 1000 });
    const small = batch({ valueBytes: 1 });
    await storage.append([part('t', 0, [big, small, batch({ valueBytes: 1 })])], NOW_MS);
    const bigSize = big.data.length;
    // Fetching from inside the big batch: it comes whole, alone, although max_bytes is 1.
    const first = await storage.read('t', 0, 1, 1);
    expect(baseOffsets(first.batches)).toEqual([0]);
    expect(first.batches[0]!.length).toBe(bigSize);
    // Not the first partition of the response (minOneBatch false): nothing that does not fit.
    expect((await storage.read('t', 0, 0, 1, false)).batches).toEqual([]);
    // Room for the big one and one small one: the third is not cut.
    const two = await storage.read('t', 0, 0, bigSize + small.data.length + 10);
    expect(baseOffsets(two.batches)).toEqual([0, 3]);
    // max_bytes 0 still returns the first batch (KIP-74), and only that.
    expect(baseOffsets((await storage.read('t', 0, 3, 0)).batches)).toEqual([3]);
  });
});
