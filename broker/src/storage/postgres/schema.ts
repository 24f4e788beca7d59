// Brings a PostgreSQL database to the current schema: each pending migration in its own
// transaction, under an advisory lock so brokers starting together migrate once.
import { StorageError } from '../storage';
import type { Db } from './db';
import { PG_MIGRATIONS } from './migrations';
import type { PgMigration } from './migrations';

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** Any constant: the key of the advisory lock every migrating broker takes. */
const MIGRATION_LOCK = 0x6d696e6e; // "minn"

/** Applies the pending migrations; returns the versions applied. Refuses a newer database. */
export async function migrate(
  db: Db,
  nowMs: number,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number[]> {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const applied: number[] = [];
  for (let i = 0; ; i++) {
    const did = await db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await q.query(`CREATE TABLE IF NOT EXISTS schema_version (
        version    integer PRIMARY KEY,
        name       text    NOT NULL,
        applied_ms bigint  NOT NULL
      )`);
      const rows = await q.query<{ version: number }>('SELECT version FROM schema_version');
      const done = new Set(rows.map((r) => r.version));
      const current = Math.max(0, ...done);
      if (current > latest) {
        throw new StorageError(
          `database schema version ${current} is newer than this minnow's ${latest}; upgrade minnow or use a database made by this version`,
        );
      }
      // By number, not "newer than the newest applied": branches merge migrations out of order.
      const next = migrations.find((m) => !done.has(m.version));
      if (!next) return undefined;
      await q.query(next.sql);
      await q.query('INSERT INTO schema_version (version, name, applied_ms) VALUES ($1, $2, $3)', [
        next.version,
        next.name,
        nowMs,
      ]);
      return next.version;
    });
    if (did === undefined) return applied;
    applied.push(did);
    if (i > migrations.length) throw new StorageError('postgres migrations did not converge');
  }
}
