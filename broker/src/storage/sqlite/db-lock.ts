// One broker per database file, as Kafka's log-directory `.lock`: a second broker on the same file
// would serve an empty view while every write of its failed. The lock is SQLite's own: a
// connection to a small side file (`minnow.db.lock`) keeps a write transaction open (a RESERVED
// lock) for the broker's life. SQLite takes it with fcntl locks, which the kernel drops when the
// process dies, so a SIGKILLed broker never leaves a stale lock; and SQLite's unix VFS also
// tracks locks between connections of one process, so a second broker in the same process is
// refused too. (A plain file opened and closed by this process would drop every fcntl lock it
// holds on that file: the holder is therefore read through SQLite, never with fs.)
//
// The main database stays shared: the checkpointer thread, `minnow backup` and read-only tools
// open it as before. A RESERVED lock lets others read the side file, so the refused process can
// name the holder (pid, host, command, start time) stored in it.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { StorageError } from '../storage';

interface Holder {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
  token: string;
}

export class DatabaseLock {
  private constructor(
    private readonly db: Database.Database,
    readonly lockPath: string,
  ) {}

  /** Takes the lock on `dbPath` or throws a StorageError naming the process that holds it. */
  static acquire(dbPath: string): DatabaseLock {
    const lockPath = `${dbPath}.lock`;
    let db: Database.Database;
    try {
      // timeout 0: a held lock is an answer, not something to wait for.
      db = new Database(lockPath, { timeout: 0 });
    } catch (err) {
      throw new StorageError(`cannot open the lock file ${lockPath}: ${(err as Error).message}`, { cause: err });
    }
    try {
      const me: Holder = {
        pid: process.pid,
        host: os.hostname(),
        command: [path.basename(process.argv[1] ?? 'node'), ...process.argv.slice(2)].join(' ').slice(0, 200),
        startedAt: new Date().toISOString(),
        token: randomBytes(8).toString('hex'),
      };
      // Writing who we are needs a commit, which lets go of the lock for a moment; another broker
      // starting in that moment may write its name too. Whoever then holds the lock checks that
      // the name is its own, else lets go and writes it again (the other one was refused).
      for (let attempt = 0; attempt < 5; attempt++) {
        if (!begin(db)) throw inUse(dbPath, db, me);
        const recorded = recordHolder(db, me);
        if (!begin(db)) throw inUse(dbPath, db, me);
        if (!recorded || readHolder(db)?.token === me.token) return new DatabaseLock(db, lockPath);
        db.exec('ROLLBACK');
      }
      throw new StorageError(`could not take the lock ${lockPath}: other brokers kept starting on ${dbPath}`);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  release(): void {
    if (this.db.open) this.db.close(); // ends the transaction: the lock goes with it
  }
}

/** BEGIN IMMEDIATE: true once held, false if another connection holds it. */
function begin(db: Database.Database): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw lockFileError(db, err);
  }
}

/** Writes the holder row (false on a full disk: the lock is still ours, only the name is stale). */
function recordHolder(db: Database.Database, me: Holder): boolean {
  try {
    db.exec(
      'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, host TEXT, command TEXT, started_at TEXT, token TEXT)',
    );
    db.prepare(
      'INSERT OR REPLACE INTO holder (id, pid, host, command, started_at, token) VALUES (1, ?, ?, ?, ?, ?)',
    ).run(me.pid, me.host, me.command, me.startedAt, me.token);
    db.exec('COMMIT');
    return true;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    const code = (err as { code?: string }).code ?? '';
    if (!/^SQLITE_(FULL|IOERR)/.test(code)) throw lockFileError(db, err);
    return false;
  }
}

function readHolder(db: Database.Database): Holder | undefined {
  try {
    const row = db
      .prepare('SELECT pid, host, command, started_at AS startedAt, token FROM holder WHERE id = 1')
      .get() as Holder | undefined;
    return row;
  } catch {
    return undefined; // no table yet (the holder could not write it), or being written
  }
}

function inUse(dbPath: string, db: Database.Database, me: Holder): StorageError {
  const h = readHolder(db);
  const what =
    !h || h.token === me.token
      ? 'another process (it has not recorded its name)'
      : `pid ${h.pid}${h.host !== me.host ? ` on ${h.host}` : ''} (${h.command}, started ${h.startedAt})${h.pid === me.pid && h.host === me.host ? ', another broker in this same process' : ''}`;
  return new StorageError(`database ${dbPath} is in use by ${what}; stop it or use another STORAGE_ENGINE path`);
}

function lockFileError(db: Database.Database, err: unknown): StorageError {
  return new StorageError(
    `the lock file ${db.name} cannot be used: ${(err as Error).message}; if no broker runs on this database, delete it`,
    { cause: err },
  );
}
