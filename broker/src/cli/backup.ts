// `minnow backup DEST.db`: a consistent copy of a (possibly running) broker's SQLite database.
//
// `VACUUM INTO` from a read-only connection: one read transaction, so the copy is the snapshot of
// one committed state however much the broker writes meanwhile, and it is compacted (no free
// pages). SQLite's online backup API, used before, copies a few pages per step and starts over
// whenever another connection writes: it never finished under a steady producer (≈10,000 restarts
// in 120 s at 20 records/s). Measured on a 170-250 MB database while producing 5 MB/s: VACUUM
// INTO 0.5-5 s, a single all-pages backup step 0.4-3 s (same snapshot guarantee, but it keeps
// free pages: 248 MB against 218 MB). Either read transaction pins the broker's WAL: the WAL
// grows by what the broker writes while the copy runs and shrinks after it.
//
// VACUUM INTO blocks its thread, so it runs in a worker thread and this one prints progress
// (bytes written so far) every second. The copy is written under a temporary name, fsynced, and
// renamed: a failed or interrupted backup never leaves a half file under DEST. VACUUM INTO writes
// a rollback-journal file; the broker that opens it switches it to WAL (pragmas.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { DEFAULT_STORAGE_URL, STORAGE_URL_ENV, storageUrlFrom, StorageUrlError } from '../storage/storage-url';
import { UsageError } from '../args';

const USAGE = `usage: minnow backup DEST.db [--storage sqlite://PATH]   (default: ${STORAGE_URL_ENV} or ${DEFAULT_STORAGE_URL})`;
const PROGRESS_EVERY_MS = 1000;
const MiB = 1024 * 1024;

// Plain JavaScript: a worker does not inherit the TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.source, { readonly: true, fileMustExist: true });
try {
  db.pragma('busy_timeout = 5000');
  // A small cache: measured on a 535 MB database, peak RSS +48 MB with SQLite's default and +3 MB
  // with 1 MiB, no slower (the OS page cache holds the file anyway). The box is the broker's.
  db.pragma('cache_size = -1024');
  db.prepare('VACUUM INTO ?').run(workerData.dest);
  parentPort.postMessage({ ok: true });
} catch (err) {
  parentPort.postMessage({ ok: false, message: String(err && err.message), code: err && err.code });
} finally {
  db.close();
}
`;

/** --storage, else STORAGE_ENGINE, else the broker's default: the same database `minnow serve` uses. */
function storageUrlOf(flag: string | undefined) {
  try {
    return storageUrlFrom(flag, process.env);
  } catch (err) {
    if (err instanceof StorageUrlError) throw new UsageError(`${err.message}\n\n${USAGE}`);
    throw err;
  }
}

export async function backupCommand(argv: string[], out: (line: string) => void = console.error): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { storage: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  const dest = positionals[0];
  if (values.help || !dest) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const target = storageUrlOf(values.storage);
  const url = target.url;
  if (target.kind !== 'sqlite')
    throw new UsageError(`--storage ${url}: backup needs a sqlite:// database (memory:// has no file)`);
  const source = target.path;
  if (!fs.existsSync(source))
    throw new UsageError(`no database at ${source} (from ${url}); is that where the broker stores its state?`);
  if (fs.existsSync(dest)) throw new UsageError(`${dest} already exists; choose a new file name`);
  const destDir = path.dirname(path.resolve(dest));
  fs.mkdirSync(destDir, { recursive: true });
  // Next to DEST (same file system, so the rename is atomic); a leftover one names its process.
  const temp = path.join(destDir, `.${path.basename(dest)}.partial-${process.pid}`);

  const sourceBytes = fileSize(source) + fileSize(`${source}-wal`);
  const started = Date.now();
  out(`backup: copying ${source} (${mib(sourceBytes)} MiB with its WAL) to ${dest}`);
  const progress = setInterval(() => {
    out(
      `backup: ${mib(fileSize(temp))} of at most ~${mib(sourceBytes)} MiB written, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }, PROGRESS_EVERY_MS);
  try {
    fs.rmSync(temp, { force: true }); // VACUUM INTO refuses a non-empty file; this name is ours
    await vacuumInto(source, temp);
    syncFile(temp);
    fs.renameSync(temp, dest);
    syncDirectory(destDir);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    fs.rmSync(`${temp}-journal`, { force: true });
    throw new Error(
      `backup of ${source} to ${dest} failed: ${(err as Error).message}; nothing was written under ${dest}`,
      { cause: err },
    );
  } finally {
    clearInterval(progress);
  }
  out(`backup of ${source} written to ${dest} (${mib(fileSize(dest))} MiB in ${Date.now() - started} ms)`);
  return 0;
}

/** Runs `VACUUM INTO dest` on a read-only connection in a worker thread. */
function vacuumInto(source: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source, dest, betterSqlite3: require.resolve('better-sqlite3') },
    });
    let result: { ok: boolean; message?: string; code?: string } | undefined;
    worker.on('message', (m) => (result = m));
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (result?.ok) resolve();
      else
        reject(
          new Error(
            result
              ? `${result.message}${result.code ? ` (${result.code})` : ''}`
              : `backup thread exited with code ${code}`,
          ),
        );
    });
  });
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1);
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** So the rename itself survives a power loss. */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
