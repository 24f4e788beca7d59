// The source of `minnow migrate`: a sqlite:// database whose broker is stopped. Its lock
// (minnow.db.lock, db-lock.ts) is taken for the whole migration, so no broker starts on it
// meanwhile, and the file is opened read-only: the migration can never change it.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import { DatabaseLock } from '../sqlite/db-lock';
import { MIGRATIONS } from '../sqlite/migrations';
import { StorageError } from '../storage';

export interface SqliteSource {
  db: Database.Database;
  path: string;
  close(): void;
}

export function openSource(path: string): SqliteSource {
  if (!fs.existsSync(path)) throw new StorageError(`no database at ${path}`);
  let lock: DatabaseLock;
  try {
    lock = DatabaseLock.acquire(path);
  } catch (err) {
    throw new StorageError(`the broker must be stopped before migrating ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const hasVersions = db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'")
      .get();
    if (!hasVersions)
      throw new StorageError(`${path} is an SQLite database but not minnow's (no schema_version table)`);
    const applied = new Set(db.prepare('SELECT version FROM schema_version').pluck().all() as number[]);
    const missing = MIGRATIONS.filter((m) => !applied.has(m.version)).map((m) => m.version);
    const known = new Set(MIGRATIONS.map((m) => m.version));
    const newer = [...applied].filter((v) => !known.has(v));
    if (newer.length > 0) {
      throw new StorageError(
        `${path} has schema versions ${newer.join(', ')}, newer than this minnow: migrate with the minnow that wrote it`,
      );
    }
    if (missing.length > 0) {
      throw new StorageError(
        `${path} lacks schema migrations ${missing.join(', ')}: start this minnow on it once (it upgrades the file), stop it, then migrate`,
      );
    }
  } catch (err) {
    db?.close();
    lock.release();
    throw err;
  }
  const opened = db;
  return {
    db: opened,
    path,
    close: () => {
      opened.close();
      lock.release();
    },
  };
}

/** The columns of a table in the source, in table order. */
export function sourceColumns(db: Database.Database, table: string): string[] {
  return (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
}

/** The highest id AUTOINCREMENT ever gave `table` (ids of deleted rows are never reused). */
export function sourceSequence(db: Database.Database, table: string): number {
  const row = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table) as number | undefined;
  return row ?? 0;
}
