// Brings a database file to the current schema: every migration newer than the file's version, in
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
    const latest = migrations[migrations.length - 1]?.version ?? 0;
    if (current > latest) {
      throw new StorageError(
        `database schema version ${current} is newer than this minnow's ${latest}; upgrade minnow or open a backup made by this version`,
      );
    }
    const applied: number[] = [];
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_ms) VALUES (?, ?, ?)');
    for (const m of migrations) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, nowMs);
      applied.push(m.version);
    }
    return applied;
  });
  // IMMEDIATE: take the write lock before reading the version, so two openers cannot both migrate.
  return run.immediate();
}
