// `minnow restore BACKUP.db [--storage sqlite://PATH]`: puts a `minnow backup` file in place of a
// broker's database, safely.
//
// Copying a file over minnow.db by hand is how databases get mixed: SQLite would replay the old
// database's -wal onto the restored pages (or read its -shm index) and serve a mix of both, or
// call it corrupt. This command refuses while a broker holds the database (it takes the broker's
// own lock, minnow.db.lock, for the whole restore, so none can start meanwhile), checks that the
// file is a minnow database (SQLite header, PRAGMA quick_check, the schema_version table), removes
// the target's -wal and -shm, and copies under a temporary name (fsync, rename, fsync of the
// directory), so a failed restore leaves the old database or the new one, never half of one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { UsageError } from '../args';
import { DatabaseLock } from '../storage/sqlite/db-lock';
import { DEFAULT_STORAGE_URL, STORAGE_URL_ENV, storageUrlFrom, StorageUrlError } from '../storage/storage-url';

const USAGE = `usage: minnow restore BACKUP.db [--storage sqlite://PATH]   (default: ${STORAGE_URL_ENV} or ${DEFAULT_STORAGE_URL})
Stop the broker first. Replaces the database with BACKUP.db (made by minnow backup) and removes its -wal and -shm.`;
const SQLITE_HEADER = 'SQLite format 3\0';

export async function restoreCommand(argv: string[], out: (line: string) => void = console.error): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { storage: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  const backup = positionals[0];
  if (values.help || !backup) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  let target;
  try {
    target = storageUrlFrom(values.storage, process.env);
  } catch (err) {
    if (err instanceof StorageUrlError) throw new UsageError(`${err.message}\n\n${USAGE}`);
    throw err;
  }
  if (target.kind !== 'sqlite') throw new UsageError(`--storage ${target.url}: restore needs a sqlite:// database`);
  const dest = path.resolve(target.path);
  if (path.resolve(backup) === dest) throw new UsageError(`${backup} is the database itself; restore another file`);
  checkBackup(backup);

  fs.mkdirSync(path.dirname(dest), { recursive: true });
  const lock = DatabaseLock.acquire(dest); // throws "in use by pid ..." while a broker runs
  const temp = path.join(path.dirname(dest), `.${path.basename(dest)}.restore-${process.pid}`);
  try {
    fs.copyFileSync(backup, temp);
    syncPath(temp, 'r+');
    // The old database's WAL and index belong to the old file: with the restored one they would
    // replay foreign pages. Removed before the rename; no broker can open the file meanwhile.
    for (const stale of [`${dest}-wal`, `${dest}-shm`, `${dest}-journal`]) {
      if (fs.existsSync(stale)) out(`restore: removing ${stale}`);
      fs.rmSync(stale, { force: true });
    }
    fs.renameSync(temp, dest);
    syncPath(path.dirname(dest), 'r');
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw new Error(`restore of ${backup} to ${dest} failed: ${(err as Error).message}`, { cause: err });
  } finally {
    lock.release();
  }
  out(`restore: ${dest} is now ${backup} (${fs.statSync(dest).size} bytes); start the broker`);
  if (process.getuid?.() === 0) {
    out(
      `restore: written as root; the broker's user must own it (the kit's boot does: chown -h minnow:minnow ${dest})`,
    );
  }
  return 0;
}

/** Throws a UsageError unless `file` is an intact minnow database. */
function checkBackup(file: string): void {
  if (!fs.existsSync(file)) throw new UsageError(`no file at ${file}`);
  const fd = fs.openSync(file, 'r');
  const header = Buffer.alloc(16);
  try {
    fs.readSync(fd, header, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_HEADER) {
    throw new UsageError(
      `${file} is not an SQLite database (its first bytes are not "SQLite format 3"); restore a file made by minnow backup`,
    );
  }
  for (const side of ['-wal', '-journal']) {
    if (fs.existsSync(`${file}${side}`)) {
      throw new UsageError(
        `${file} has a ${file}${side} beside it: it is a live database, not a backup; make one with minnow backup`,
      );
    }
  }
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma('quick_check', { simple: false }) as { quick_check: string }[];
    const problems = check.map((r) => r.quick_check).filter((r) => r !== 'ok');
    if (problems.length > 0) {
      throw new UsageError(`${file} fails SQLite's quick_check: ${problems.slice(0, 3).join('; ')}`);
    }
    const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'").get();
    if (!table) throw new UsageError(`${file} is an SQLite database but not minnow's (no schema_version table)`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file} cannot be read as a database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

function syncPath(p: string, flags: 'r' | 'r+'): void {
  const fd = fs.openSync(p, flags);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
