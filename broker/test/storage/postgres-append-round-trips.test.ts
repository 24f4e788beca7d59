// The postgres:// engine's append transaction, statement by statement: an idempotent producer's
// append costs the round trips of a plain one (BEGIN, lock, write, COMMIT; the producer states
// come with the lock), and those states are read after the lock wait, so what another broker
// committed meanwhile counts. A real PostgreSQL from test/support/postgres-server.ts.
import { Client } from 'pg';
import { ErrorCode } from '../../src/protocol/error-codes';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
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

/** The statements this process sends to PostgreSQL while `fn` runs: a prepared one by its name. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = Client.prototype.query;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const q = args[0] as string | { name?: string; text: string };
    sent.push(typeof q === 'string' ? q : (q.name ?? q.text));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return sent.map((s) => s.replace(/\s+/g, ' ').trim());
}

describeWithTools('postgresql')('postgres engine: the append transaction', () => {
  let dbUrl: string;
  let storage: PostgresStorage;
  const closing: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    dbUrl = await server.createDatabase('pgfix_append_rt');
    storage = await PostgresStorage.open(dbUrl);
    await storage.createTopic('t', 1, {});
  });
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((c) => c.close()));
    await storage.close();
    await server.dropDatabase(dbUrl);
  });

  /** The append transaction's statements (the NOTIFY after the commit left out). */
  const appendStatements = async (b: ReturnType<typeof batch>) => {
    let result: unknown;
    const sent = await statementsOf(async () => {
      result = await storage.append([part('t', 0, [b])], NOW_MS);
    });
    return { result, statements: sent.filter((s) => !s.includes('pg_notify')).map((s) => s.slice(0, 40)) };
  };

  it('an idempotent batch is appended in BEGIN, lock (with its producer state), write, COMMIT', async () => {
    const producer = { producerId: 42, producerEpoch: 0 };
    await storage.append([part('t', 0, [batch({ ...producer, baseSequence: 0 })])], NOW_MS);
    const { result, statements } = await appendStatements(batch({ ...producer, baseSequence: 1 }));
    expect(result).toEqual([expect.objectContaining({ errorCode: ErrorCode.NONE, baseOffset: 1 })]);
    // Before: BEGIN, minnow_lock_partitions, minnow_load_producers, the write, COMMIT.
    expect(statements).toEqual(['BEGIN', 'minnow_lock_partitions_with_producers', expect.any(String), 'COMMIT']);
    expect(statements[2]).toMatch(/^WITH rows_insert AS/);
  });

  it("a plain producer's batch: BEGIN, lock, write, COMMIT (no producer state to read)", async () => {
    const { result, statements } = await appendStatements(batch());
    expect(result).toEqual([expect.objectContaining({ errorCode: ErrorCode.NONE, baseOffset: 0 })]);
    expect(statements).toEqual(['BEGIN', 'minnow_lock_partitions', expect.any(String), 'COMMIT']);
  });

  it('a batch another broker stored while this append waited for the lock is a duplicate, not stored twice', async () => {
    const other = await PostgresStorage.open(dbUrl); // a second broker on the same database
    closing.push(other);
    const producer = { producerId: 7, producerEpoch: 0 };
    await storage.append([part('t', 0, [batch({ ...producer, baseSequence: 0 })])], NOW_MS);
    // A third session holds the partition's row lock, so both brokers' appends queue behind it.
    const holder = new Client({ connectionString: dbUrl });
    await holder.connect();
    closing.push({ close: () => holder.end() });
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM partition FOR NO KEY UPDATE');
    const waiters = async (n: number) => {
      for (let i = 0; i < 400; i++) {
        const { rows } = await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (rows[0]!.n >= n) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`fewer than ${n} sessions ever waited for the partition lock`);
    };
    // The producer's retry of sequence 1 reaches both brokers (a leader change, a timed-out request).
    const viaOther = other.append([part('t', 0, [batch({ ...producer, baseSequence: 1 })])], NOW_MS);
    await waiters(1);
    const viaThis = storage.append([part('t', 0, [batch({ ...producer, baseSequence: 1 })])], NOW_MS);
    await waiters(2);
    await holder.query('COMMIT');
    const results = await Promise.all([viaOther, viaThis]);
    // Whichever got the lock first stored it at offset 1; the other read its state after the wait.
    expect(results.map((r) => [r[0]!.errorCode, r[0]!.baseOffset])).toEqual([
      [ErrorCode.NONE, 1],
      [ErrorCode.NONE, 1],
    ]);
    const stored = await storage.read('t', 0, 0, 1 << 20);
    expect(baseOffsets(stored.batches)).toEqual([0, 1]);
  });
});
