// Opening the sqlite:// engine's file: the one-broker lock, the disk reserve on a full disk, the
// pragmas, the checks that it is a sound minnow database, the migrations, and the WAL
// checkpointer thread. sqlite-storage.ts builds the per-concern modules on what this returns.
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { releaseReserveIfFull } from '../disk-space';
import { StorageError } from '../storage';
import { applyPragmas, DEFAULT_PRAGMAS } from './pragmas';
import type { PragmaOptions } from './pragmas';
import { migrate } from './schema';
import { asStorageError, Transactor } from './transaction';
import { Checkpointer } from './checkpointer';
import { DatabaseLock } from './db-lock';
import { checkFileSystemWritable, startupError, quickCheck } from './startup-checks';

export interface SqliteStorageOptions extends Partial<PragmaOptions> {
  /** The URL it was opened with, reported by `url`. Default: sqlite:// + path. */
  url?: string;
  /** The checkpointer thread exits after this long without a commit (default 30 s). */
  checkpointerIdleStopMs?: number;
  /** Where start-up notes go (the disk reserve released on a full disk); default: process warnings. */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
  /** Bytes of recently appended batches kept in memory for reads at the end of a log (tail-cache.ts); 0: none. */
  tailCacheBytes?: number;
}

/** An open, migrated database file and what is held with it until close. */
export interface OpenDatabase {
  db: Database.Database;
  /** Every write goes through it (transaction.ts); it tells the checkpointer of each commit. */
  tx: Transactor;
  /** Held from open to close: one broker per database file (db-lock.ts). */
  lock: DatabaseLock;
  /** The WAL checkpointer thread's owner (undefined with checkpointIntervalMs 0). */
  checkpointer: Checkpointer | undefined;
}

/**
 * Opens (creating if need be) and migrates the database at `path`. Throws StorageError saying what
 * failed; nothing stays open or locked then.
 */
export function openDatabase(path: string, options: SqliteStorageOptions): OpenDatabase {
  const warn = options.warn ?? ((msg, fields) => process.emitWarning(`minnow: ${msg} ${JSON.stringify(fields)}`));
  checkFileSystemWritable(path);
  const lock = DatabaseLock.acquire(path);
  // On a full disk SQLite cannot even create its -shm file (SQLITE_IOERR_SHMSIZE): the reserve
  // file kept for this (disk-space.ts) goes first.
  const released = releaseReserveIfFull(path);
  if (released)
    warn(`disk full: ${released.freeBefore} bytes free on ${dirname(path)}`, {
      what: `released the ${released.released}-byte reserve file to start`,
    });
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    lock.release();
    throw new StorageError(
      `cannot open SQLite database "${path}": ${(err as Error).message}; check the path and its permissions`,
      { cause: err },
    );
  }
  let checkpointer: Checkpointer | undefined;
  try {
    applyPragmas(db, { ...DEFAULT_PRAGMAS, ...options });
    checkIsMinnowDatabase(db, path);
    quickCheck(db, path);
    migrate(db, Date.now());
    const { checkpointIntervalMs, walAutocheckpointPages, walMaxBytes } = { ...DEFAULT_PRAGMAS, ...options };
    checkpointer =
      checkpointIntervalMs > 0
        ? new Checkpointer(
            path,
            checkpointIntervalMs,
            (message) => process.emitWarning(`minnow: WAL checkpoint of ${path}: ${message}`),
            options.checkpointerIdleStopMs,
            () => db.pragma(`wal_autocheckpoint = ${walAutocheckpointPages}`),
            walMaxBytes,
            () => void (db.open && db.pragma('wal_checkpoint(PASSIVE)')),
          )
        : undefined;
    const committed = checkpointer;
    const tx = new Transactor(db, committed ? () => committed.committed() : undefined);
    return { db, tx, lock, checkpointer };
  } catch (err) {
    throw failedStartup({ db, lock, checkpointer }, err, path);
  }
}

/** Stops and closes what `openDatabase` opened, for a start-up that failed after it; the error to throw. */
export function failedStartup(
  opened: Pick<OpenDatabase, 'db' | 'lock' | 'checkpointer'>,
  err: unknown,
  path: string,
): Error {
  opened.checkpointer?.stop();
  opened.db.close();
  opened.lock.release();
  return startupError(asStorageError(err), path);
}

/** Refuses to migrate someone else's database into a minnow one. */
function checkIsMinnowDatabase(db: Database.Database, path: string): void {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  if (names.length > 0 && !names.includes('schema_version')) {
    throw new StorageError(
      `"${path}" is an SQLite database but not a minnow one (tables: ${names.slice(0, 5).join(', ')}); point --storage at a new or minnow file`,
    );
  }
}
