// The postgres:// engine's own tests (the shared contract runs in postgres.test.ts): several
// PostgresStorage instances on ONE database, as several brokers are, plus opening and failures.
// A real PostgreSQL from test/support/postgres-server.ts (MINNOW_TEST_PG_URL, else a private one).
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { readBatchHeader } from '../../src/protocol/record-batch';
import { ErrorCode } from '../../src/protocol/error-codes';
import { Db, retriable } from '../../src/storage/postgres/db';
import { APPEND_CHANNEL, parseAppendNotice } from '../../src/storage/postgres/log-writes';
import { openStorage } from '../../src/storage/open-storage';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import { redactPostgresUrl } from '../../src/storage/postgres/url';
import { StorageError } from '../../src/storage/storage';
import { describeWithTools, postgresBinDir } from '../support/external-tools';
import { postgresServer, startPrivatePostgres } from '../support/postgres-server';
import type { PostgresServer, PrivateServer } from '../support/postgres-server';
import { batch, NOW_MS, part } from './fixtures';

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresServer();
});
afterAll(async () => {
  await server.stop();
}, 120_000);

async function sql(url: string, text: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

describeWithTools('postgresql')('postgres engine: brokers sharing one database', () => {
  let dbUrl: string;
  const open: PostgresStorage[] = [];
  const storage = async () => {
    const s = await PostgresStorage.open(dbUrl);
    open.push(s);
    return s;
  };

  beforeEach(async () => {
    dbUrl = await server.createDatabase('pgcore_engine');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    await server.dropDatabase(dbUrl);
  });

  it('two brokers appending to one partition at once hand out every offset exactly once', async () => {
    const [a, b] = await Promise.all([storage(), storage()]);
    await a.createTopic('t', 1, {});
    const appends = (s: PostgresStorage, k: number) =>
      Array.from({ length: 40 }, (_, i) => s.append([part('t', 0, [batch({ records: 1 + ((i + k) % 3) })])], NOW_MS));
    const results = (await Promise.all([...appends(a, 0), ...appends(b, 1)])).map((r) => r[0]!);
    expect(results.every((r) => r.errorCode === ErrorCode.NONE)).toBe(true);

    const read = await b.read('t', 0, 0, 1e9);
    const headers = read.batches.map((x) => readBatchHeader(x));
    expect(headers).toHaveLength(80);
    let next = 0;
    for (const h of headers) {
      expect(Number(h.baseOffset)).toBe(next); // contiguous, no gap, no overlap
      next += h.lastOffsetDelta + 1;
    }
    expect(read.highWatermark).toBe(next);
    const bases = results.map((r) => r.baseOffset).sort((x, y) => x - y);
    expect(new Set(bases).size).toBe(80);
    expect(bases).toEqual(headers.map((h) => Number(h.baseOffset)));
    expect(await a.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: next });
  });

  it('appends naming partitions in opposite orders do not deadlock', async () => {
    const [a, b] = await Promise.all([storage(), storage()]);
    await a.createTopic('t', 2, {});
    const forward = () => a.append([part('t', 0, [batch()]), part('t', 1, [batch()])], NOW_MS);
    const backward = () => b.append([part('t', 1, [batch()]), part('t', 0, [batch()])], NOW_MS);
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? forward() : backward())));
    expect(all.flat().every((r) => r.errorCode === ErrorCode.NONE)).toBe(true);
    expect(await a.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 20 });
    expect(await b.offsets('t', 1)).toEqual({ logStartOffset: 0, highWatermark: 20 });
  });

  it('an idempotent producer retrying through another broker gets its original offset', async () => {
    const [a, b] = await Promise.all([storage(), storage()]);
    await a.createTopic('t', 1, {});
    const { producerId } = await a.initProducerId(null, NOW_MS);
    expect((await b.initProducerId(null, NOW_MS)).producerId).not.toBe(producerId);
    const sent = batch({ producerId, producerEpoch: 0, baseSequence: 0, records: 2 });
    const copy = { header: sent.header, data: Buffer.from(sent.data) };
    expect((await a.append([part('t', 0, [sent])], NOW_MS))[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect((await b.append([part('t', 0, [copy])], NOW_MS))[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect((await b.offsets('t', 0))!.highWatermark).toBe(2);
  });

  it("sees the other broker's topics, deletions and open transactions without a restart", async () => {
    const [a, b] = await Promise.all([storage(), storage()]);
    await a.createTopic('t', 1, { 'retention.ms': '5' });
    expect(await b.topic('t')).toEqual(await a.topic('t'));
    await expect(b.createTopic('t', 1, {})).rejects.toThrow(/already exists/);
    await b.append([part('t', 0, [batch(), batch()])], NOW_MS);
    expect(await a.lastStableOffset('t', 0)).toBe(2);
    // An open transaction from offset 1 (as pg-rest's transactions write it): the LSO moves for both.
    await sql(dbUrl, 'INSERT INTO open_txn (partition_id, producer_id, first_offset) SELECT id, 7, 1 FROM partition');
    expect(await a.lastStableOffset('t', 0)).toBe(1);
    expect((await b.read('t', 0, 0, 1e6, true, true)).lastStableOffset).toBe(1);
    expect(await b.deleteTopic('t')).toBe(true);
    expect(await a.topic('t')).toBeUndefined();
    expect((await a.append([part('t', 0, [batch()])], NOW_MS))[0]!.errorCode).toBe(
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
  });

  it('NOTIFYs each committed append with the new high watermark', async () => {
    const s = await storage();
    await s.createTopic('t', 2, {});
    const listener = new Client({ connectionString: dbUrl });
    await listener.connect();
    const notices: unknown[] = [];
    listener.on('notification', (m) => notices.push(parseAppendNotice(m.payload ?? '')));
    await listener.query(`LISTEN ${APPEND_CHANNEL}`);
    await s.append([part('t', 1, [batch({ records: 3 })])], NOW_MS);
    for (let i = 0; i < 100 && notices.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await listener.end();
    const topicId = (await s.topic('t'))!.topicId;
    expect(notices).toEqual([{ topic: 't', topicId, partition: 1, highWatermark: 3 }]);
  });

  it('is what openStorage opens for a postgres:// URL, reporting it without the password', async () => {
    const withPassword = new URL(dbUrl);
    withPassword.password = 'not-needed'; // trust authentication: ignored by the server
    const s = await openStorage(withPassword.toString());
    try {
      expect(s).toBeInstanceOf(PostgresStorage);
      expect(s.url).toBe(withPassword.toString().replace(':not-needed@', ':***@'));
      await s.createTopic('t', 1, {});
      expect((await s.append([part('t', 0, [batch()])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.NONE);
    } finally {
      await s.close();
    }
  });

  it('refuses a database whose schema is newer than this minnow', async () => {
    await (await storage()).close();
    open.length = 0;
    await sql(dbUrl, "INSERT INTO schema_version (version, name, applied_ms) VALUES (999, 'future', 0)");
    await expect(PostgresStorage.open(dbUrl)).rejects.toThrow(/schema version 999 is newer/);
  });

  it('fails with a StorageError carrying a code when PostgreSQL cannot be reached, and hides passwords', async () => {
    const err = await PostgresStorage.open('postgres://minnow:secret@127.0.0.1:1/x', {
      connectionTimeoutMs: 2000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe('ECONNREFUSED');
    expect(String((err as Error).message)).not.toContain('secret');
    expect(redactPostgresUrl('postgres://minnow:secret@db:5432/m')).toBe('postgres://minnow:***@db:5432/m');
  });
});

describeWithTools('postgresql')('postgres engine: losing connections', () => {
  it('fails a statement past statement_timeout with a retriable StorageError (57014), the pool still usable', async () => {
    const db = new Db({ connectionString: server.url('postgres') }, { statementTimeoutMs: 100 });
    try {
      const err = await db.query('SELECT pg_sleep(5)').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).code).toBe('57014');
      expect(retriable(err)).toBe(true);
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      // An engine error (not PostgreSQL's, not the network's) is not retriable.
      expect(retriable(new StorageError('topic "x" already exists'))).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('answers StorageErrors with a code while connections are cut, then reconnects by itself', async () => {
    const dbUrl = await server.createDatabase('pgcore_conn');
    const name = dbUrl.slice(dbUrl.lastIndexOf('/') + 1);
    const s = await PostgresStorage.open(dbUrl, { max: 4 });
    try {
      await s.createTopic('t', 1, {});
      // Several connections in the pool, then every one of them is killed (as a restart does).
      await Promise.all(Array.from({ length: 4 }, () => s.append([part('t', 0, [batch()])], NOW_MS)));
      await sql(
        server.url('postgres'),
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
      );
      const errors: unknown[] = [];
      let appended = false;
      for (let i = 0; i < 10 && !appended; i++) {
        try {
          const [r] = await s.append([part('t', 0, [batch()])], NOW_MS);
          appended = r!.errorCode === ErrorCode.NONE;
        } catch (err) {
          errors.push(err);
        }
      }
      expect(appended).toBe(true);
      for (const err of errors) {
        expect(err).toBeInstanceOf(StorageError);
        expect((err as StorageError).code).toEqual(expect.any(String));
      }
      expect((await s.offsets('t', 0))!.highWatermark).toBe(5);
    } finally {
      await s.close();
    }
  });
});

describeWithTools('postgresql')('postgres engine: a broker that vanishes mid-transaction', () => {
  it('loses its row locks after idle_in_transaction_session_timeout, so the other brokers append again', async () => {
    const dbUrl = await server.createDatabase('pgcore_idle');
    const a = await PostgresStorage.open(dbUrl);
    const stuck = new Db({ connectionString: dbUrl }, { idleInTransactionTimeoutMs: 300 });
    try {
      await a.createTopic('t', 1, {});
      // A "broker" that locked the partition as an append does, then never said another word.
      let locked!: () => void;
      const lockTaken = new Promise<void>((r) => (locked = r));
      // It commits once the other broker appended (its session was ended by then), or after 3 s
      // (a fixed 3 s before): an append that waited for its lock would then follow that commit.
      let appended!: () => void;
      const afterAppend = new Promise<void>((r) => (appended = r));
      let timer: NodeJS.Timeout | undefined;
      const gone = stuck
        .tx(async (q) => {
          await q.query('SELECT id FROM partition FOR UPDATE');
          locked();
          await Promise.race([afterAppend, new Promise((r) => (timer = setTimeout(r, 3000)))]);
        })
        .catch((e: unknown) => e);
      await lockTaken;
      const result = await a.append([part('t', 0, [batch()])], NOW_MS);
      appended();
      expect(result[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
      expect(await gone).toBeInstanceOf(StorageError); // its session was ended: nothing of it commits
      clearTimeout(timer);
    } finally {
      await a.close();
      await stuck.close();
      await server.dropDatabase(dbUrl);
    }
  });
});

// A real restart needs the server binaries (not just MINNOW_TEST_PG_URL): a private server of its own.
const binDir = postgresBinDir();
(binDir ? describe : describe.skip)('postgres engine: PostgreSQL restarts under a running broker', () => {
  let own: PrivateServer;
  beforeAll(async () => {
    own = await startPrivatePostgres(binDir);
  }, 180_000);
  afterAll(() => own?.stop());

  const pgCtl = (...args: string[]) => {
    const bin = path.join(binDir!, 'pg_ctl');
    const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
    const r = spawnSync(cmd, argv, { cwd: os.tmpdir(), timeout: 120_000, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`pg_ctl ${args.join(' ')}: ${r.stderr}`);
  };

  it('answers retriable StorageErrors while PostgreSQL is down and carries on when it is back', async () => {
    const s = await PostgresStorage.open(`${own.baseUrl}/postgres`, { connectionTimeoutMs: 2000 });
    try {
      await s.createTopic('t', 1, {});
      await Promise.all([1, 2, 3].map(() => s.append([part('t', 0, [batch()])], NOW_MS)));
      pgCtl('-D', path.join(own.dir, 'data'), '-m', 'fast', '-w', 'stop');
      const down = await s.append([part('t', 0, [batch()])], NOW_MS).catch((e: unknown) => e);
      expect(down).toBeInstanceOf(StorageError);
      expect(retriable(down)).toBe(true);
      pgCtl('-D', path.join(own.dir, 'data'), '-l', path.join(own.dir, 'server.log'), '-w', 'start');
      let result;
      for (let i = 0; i < 5 && !result; i++) {
        result = await s.append([part('t', 0, [batch()])], NOW_MS).catch((e: unknown) => {
          expect(retriable(e)).toBe(true); // a connection the pool had not yet dropped
          return undefined;
        });
      }
      expect(result?.[0]).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 3 });
      expect(await s.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 4 });
    } finally {
      await s.close();
    }
  }, 120_000);
});
