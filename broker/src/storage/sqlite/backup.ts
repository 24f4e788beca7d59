// `minnow backup` for sqlite://: SQLite's online backup API, a few hundred pages per step between
// event-loop turns, so the broker keeps serving; writes made meanwhile through this connection are
// copied too.
import type Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { StorageError } from '../storage';

/** Copies the database into `destPath`, a new file (refused if it exists; its folder is created). */
export async function backupDatabase(db: Database.Database, destPath: string): Promise<void> {
  if (existsSync(destPath))
    throw new StorageError(`backup destination "${destPath}" already exists; remove it or choose a new path`);
  mkdirSync(dirname(destPath), { recursive: true });
  try {
    await db.backup(destPath);
  } catch (err) {
    throw new StorageError(`backup to "${destPath}" failed: ${(err as Error).message}`, { cause: err });
  }
}
