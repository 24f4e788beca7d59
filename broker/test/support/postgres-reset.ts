// One database reused by many tests of the postgres:// engine, put back between them into the state
// it had right after the migrations. A new database per test (CREATE DATABASE ... TEMPLATE) costs
// 0.4-2 s of fsync'd file copying on this machine (WAL_LOG strategy: the whole template goes through
// the WAL, https://www.postgresql.org/docs/15/sql-createdatabase.html) and DROP DATABASE as much
// again: that was most of the contract tests' time. Emptying every table in one transaction and
// putting back the few rows the migrations wrote (and every sequence's position) is one commit.
import { Client } from 'pg';

/** What a database held when it was taken: every table's rows (most are empty) and sequence positions. */
export interface PristineState {
  tables: string[];
  rows: { table: string; json: string }[];
  sequences: { name: string; value: string; called: boolean }[];
}

const connect = async (url: string): Promise<Client> => {
  const c = new Client({ connectionString: url });
  c.on('error', () => {}); // a lost connection also rejects the query in flight: reported there
  await c.connect();
  return c;
};

/** Records `url`'s tables, their rows and its sequences (call it with no other connection writing). */
export async function takePristineState(url: string): Promise<PristineState> {
  const c = await connect(url);
  try {
    const tables = (
      await c.query<{ t: string }>(
        `SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`,
      )
    ).rows.map((r) => r.t);
    const rows: PristineState['rows'] = [];
    for (const table of tables) {
      const { json, n } = (
        await c.query(`SELECT count(*)::int AS n, coalesce(json_agg(t), '[]')::text AS json FROM ${table} t`)
      ).rows[0] as { json: string; n: number };
      if (n > 0) rows.push({ table, json });
    }
    // pg_sequences covers identity columns' sequences too; last_value is null before the first nextval.
    const sequences = (
      await c.query<{ name: string; value: string; called: boolean }>(
        `SELECT format('%I.%I', schemaname, sequencename) AS name, coalesce(last_value, start_value)::text AS value,
                last_value IS NOT NULL AS called
           FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1`,
      )
    ).rows;
    return { tables, rows, sequences };
  } finally {
    await c.end();
  }
}

/**
 * Puts `url` back to `state` in one transaction. Every connection a test opened must be closed: a
 * storage left open holds locks, and the reset then fails after 10 s naming the lock wait instead of
 * hanging the file.
 */
export async function resetToPristine(url: string, state: PristineState): Promise<void> {
  const c = await connect(url);
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL lock_timeout = '10s'`);
    // Tables a test created (none of the contract's do) would survive: refuse rather than leak them.
    const now = (
      await c.query<{ t: string }>(
        `SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`,
      )
    ).rows.map((r) => r.t);
    if (now.join() !== state.tables.join())
      throw new Error(`the database's tables changed since it was taken: ${now.join()} (was ${state.tables.join()})`);
    // DELETE, not TRUNCATE: TRUNCATE gives every table and index a new file (0.5-1 s per reset on
    // this machine under load, most of a contract test's time); the tables hold a few rows each.
    // The lock is TRUNCATE's, so a storage a test left open still fails the reset as before.
    const all = state.tables.join(', ');
    await c.query(
      `LOCK TABLE ${all} IN ACCESS EXCLUSIVE MODE; ${state.tables.map((t) => `DELETE FROM ${t};`).join(' ')}`,
    );
    for (const { table, json } of state.rows)
      await c.query(
        `INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${table}, $1)`,
        [json],
      );
    await c.query('SELECT setval(n, v, called) FROM unnest($1::text[], $2::bigint[], $3::bool[]) AS s(n, v, called)', [
      state.sequences.map((s) => s.name),
      state.sequences.map((s) => s.value),
      state.sequences.map((s) => s.called),
    ]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw new Error(`could not reset ${url.replace(/\/\/[^@]*@/, '//')} between tests: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    await c.end();
  }
}

/**
 * New sessions on `url`'s database commit without waiting for the WAL's fsync (synchronous_commit
 * off, for that database only): 3-8 ms a commit on this machine under load, and tests of hundreds
 * of commits took 5-9 s. For tests that never crash the server, the one thing it changes: a commit
 * is visible to every session the moment it returns either way.
 */
export async function commitWithoutFsync(url: string): Promise<void> {
  const c = await connect(url);
  try {
    const { name } = (await c.query<{ name: string }>('SELECT current_database() AS name')).rows[0]!;
    await c.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  } finally {
    await c.end();
  }
}
