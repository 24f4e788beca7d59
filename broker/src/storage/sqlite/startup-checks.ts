// Start-up checks of the database file, each failing with what is wrong and what to do: a
// read-only file system or file, and a damaged file.
import type Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StorageError } from '../storage';

/** The tables checked at start; record_batch is left out (see quickCheck). */
const CHECKED_TABLES = [
  'sqlite_schema',
  'schema_version',
  'cluster',
  'topic',
  'topic_config',
  'partition',
  'producer',
  'producer_partition',
  'group_offset',
  'broker_config',
];

/**
 * SQLite opens a file it cannot write read-only without a word, and the broker would then fail
 * on its first write: say so before anything is opened.
 */
export function checkFileSystemWritable(dbPath: string): void {
  const dir = path.dirname(path.resolve(dbPath));
  for (const target of [dir, dbPath]) {
    if (target === dbPath && !fs.existsSync(dbPath)) continue;
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EROFS') {
        throw new StorageError(
          `the file system holding ${dir} is read-only (EROFS): remount it read-write (mount -o remount,rw), or point STORAGE_ENGINE at a writable path; a copy can be served from anywhere writable`,
          { cause: err, code },
        );
      }
      if (code === 'EACCES' || code === 'EPERM') {
        const user = process.getuid?.() ?? '?';
        throw new StorageError(
          `${target} is not writable by this user (uid ${user}, ${code}): give it write permission (chown/chmod), or point STORAGE_ENGINE at a writable path`,
          { cause: err, code },
        );
      }
      if (code !== 'ENOENT')
        throw new StorageError(`cannot check ${target}: ${(err as Error).message}`, { cause: err, code });
    }
  }
}

/**
 * PRAGMA quick_check of every table but record_batch. A full quick_check reads every page, the
 * batches' overflow pages too: measured on a 1.1 GB file, 0.3 s with the file in the page cache
 * but 18 s from disk (and minutes at an EBS volume's baseline throughput), on every start. The
 * small tables (catalogue, offsets, producer state) take well under a millisecond and are what a
 * damaged file would make the broker misreport; a damaged batch page is found when it is read
 * (that fetch gets KAFKA_STORAGE_ERROR) and `sqlite3 FILE 'PRAGMA quick_check'` checks it all.
 */
export function quickCheck(db: Database.Database, dbPath: string): void {
  const existing = new Set(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
  for (const table of CHECKED_TABLES) {
    if (table !== 'sqlite_schema' && !existing.has(table)) continue;
    const rows = db.prepare(`PRAGMA quick_check('${table}')`).pluck().all() as string[];
    if (rows.length !== 1 || rows[0] !== 'ok') {
      throw damaged(dbPath, `quick_check of table ${table}: ${rows.slice(0, 3).join('; ')}`);
    }
  }
}

/** A start-up failure that means a damaged file or a full disk becomes the message that says what to do. */
export function startupError(err: Error, dbPath: string): Error {
  const code = (err as StorageError).code ?? '';
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB')
    return damaged(dbPath, err.message);
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE') {
    // Only without the reserve file (a first start, or MINNOW_MIN_FREE_BYTES=0): see disk-space.ts.
    const dir = path.dirname(path.resolve(dbPath));
    let free = '?';
    try {
      const s = fs.statfsSync(dir);
      free = String(s.bavail * s.bsize);
    } catch {
      // keep '?'
    }
    return new StorageError(
      `disk full: ${free} bytes free on ${dir}; the broker cannot open ${dbPath} (SQLite needs 32 KiB for its -shm file and room for its WAL, and no reserve file was left to release): free some space on that file system (not minnow's own files) or grow the volume, and start again`,
      { cause: err, code },
    );
  }
  return err;
}

function damaged(dbPath: string, detail: string): StorageError {
  return new StorageError(
    `database ${dbPath} is damaged (${detail}). The broker will not start on it. To recover: stop ` +
      `anything using it, move it and its -wal/-shm files aside, then restore your latest ` +
      `\`minnow backup\` copy to ${dbPath}, or salvage what is readable with ` +
      `\`sqlite3 ${dbPath}.damaged .recover | sqlite3 ${dbPath}\`, and start again`,
    { code: 'SQLITE_CORRUPT' },
  );
}
