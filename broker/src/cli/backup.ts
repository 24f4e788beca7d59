// `minnow backup DEST.db`: a consistent copy of a (possibly running) broker's SQLite database,
// taken with SQLite's online backup API from a read-only connection: the broker keeps serving,
// and the copy is a snapshot of one committed state. Start a broker on the copy to serve it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { parseStorageUrl } from '../storage/open-storage';
import { UsageError } from './args';

const USAGE = `usage: minnow backup DEST.db [--storage sqlite://PATH]   (default: STORAGE_ENGINE or sqlite://./data/minnow.db)`;

export async function backupCommand(argv: string[], out: (line: string) => void = console.error): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { storage: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  const dest = positionals[0];
  if (values.help || !dest) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const url = values.storage ?? process.env.STORAGE_ENGINE ?? 'sqlite://./data/minnow.db';
  const target = parseStorageUrl(url);
  if (target.kind !== 'sqlite') throw new UsageError(`--storage ${url}: backup needs a sqlite:// database (memory:// has no file)`);
  const source = target.path;
  if (!fs.existsSync(source)) throw new UsageError(`no database at ${source} (from ${url}); is that where the broker stores its state?`);
  if (fs.existsSync(dest)) throw new UsageError(`${dest} already exists; choose a new file name`);
  fs.mkdirSync(path.dirname(path.resolve(dest)), { recursive: true });
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const started = Date.now();
    await db.backup(dest, {
      progress: ({ totalPages, remainingPages }) => {
        out(`backup: ${totalPages - remainingPages}/${totalPages} pages`);
        return 1024;
      },
    });
    const bytes = fs.statSync(dest).size;
    out(`backup of ${source} written to ${dest} (${(bytes / 1048576).toFixed(1)} MiB in ${Date.now() - started} ms)`);
    return 0;
  } finally {
    db.close();
  }
}
