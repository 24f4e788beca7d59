// Brings a database file to the current schema: every migration the file has not had yet, in
// order, in one transaction, so a crash mid-upgrade leaves the previous schema intact.
import type Database from 'better-sqlite3';
import { StorageError } from '../storage';
import { MIGRATIONS } from './migrations';
import type { Migration } from './migrations';

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Applies the pending migrations; returns the versions applied (empty when already current). */
export function migrate(db: Database.Database, nowMs: number, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
      version    INTEGER PRIMARY KEY,
      name       TEXT    NOT NULL,
      applied_ms INTEGER NOT NULL
    )`);
    const current = (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
    const done = new Set(db.prepare('SELECT version FROM schema_version').pluck().all() as number[]);
    const latest = migrations[migrations.length - 1]?.version ?? 0;
    if (current > latest) {
      throw new StorageError(
        `database schema version ${current} is newer than this minnow's ${latest}; upgrade minnow or open a backup made by this version`,
      );
    }
    const applied: number[] = [];
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_ms) VALUES (?, ?, ?)');
    for (const m of migrations) {
      // By number, not "newer than the newest applied": branches merge migrations out of order
      // (ACLs are 4, quotas 5), so a file may have 5 and still lack 4.
      if (done.has(m.version)) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, nowMs);
      applied.push(m.version);
    }
    return applied;
  });
  // IMMEDIATE: take the write lock before reading the version, so two openers cannot both migrate.
  return run.immediate();
}
