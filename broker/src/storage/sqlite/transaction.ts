// One SQLite transaction per storage call, plus an undo log for the in-memory caches (partition
// offsets, producer states): a rollback must leave them exactly as the database is.
import type Database from 'better-sqlite3';
import { StorageError } from '../storage';

export class Transactor {
  private undoLog: (() => void)[] | null = null;
  private readonly txn: (fn: () => unknown) => unknown;

  /** `onCommit` runs after each outermost transaction commits (the checkpointer's wake-up). */
  constructor(
    db: Database.Database,
    private readonly onCommit: () => void = () => {},
  ) {
    // Created once: db.transaction() wraps BEGIN/COMMIT/ROLLBACK (and SAVEPOINT when nested).
    this.txn = db.transaction((fn: () => unknown) => fn());
  }

  /** Runs `fn` in a transaction; on any error the database and the caches roll back together. */
  run<T>(fn: () => T): T {
    if (this.undoLog) return this.nested(fn);
    const log: (() => void)[] = [];
    this.undoLog = log;
    let result: T;
    try {
      result = this.txn(fn) as T;
    } catch (err) {
      for (let i = log.length - 1; i >= 0; i--) log[i]!();
      throw asStorageError(err);
    } finally {
      this.undoLog = null;
    }
    this.onCommit(); // after the commit, outside the rollback path: it must not undo committed caches
    return result;
  }

  /**
   * A call inside another: a SAVEPOINT (better-sqlite3 nests db.transaction so). On an error its
   * own cache changes are undone here, since its caller may catch the error and commit the rest
   * (a batch of topics, each answered on its own); the outer call owns the earlier entries.
   */
  private nested<T>(fn: () => T): T {
    const log = this.undoLog!;
    const mark = log.length;
    try {
      return this.txn(fn) as T;
    } catch (err) {
      for (let i = log.length - 1; i >= mark; i--) log[i]!();
      log.length = mark;
      throw asStorageError(err);
    }
  }

  /** Registers how to restore a cache if the current transaction rolls back (outside one: nothing to do). */
  onRollback(undo: () => void): void {
    this.undoLog?.push(undo);
  }
}

/** SQLite failures (disk full, I/O error, corruption) become StorageError (KAFKA_STORAGE_ERROR). */
export function asStorageError(err: unknown): Error {
  if (err instanceof StorageError) return err;
  // Checked by name, not instanceof: better-sqlite3 may create its errors in another realm (jest
  // runs tests in a vm context), where `instanceof Error` is false.
  const e = err as { name?: unknown; message?: unknown; code?: unknown } | null;
  if (e && typeof e === 'object' && e.name === 'SqliteError') {
    const code = typeof e.code === 'string' ? e.code : undefined;
    return new StorageError(`SQLite failed: ${String(e.message)} (${code ?? 'no code'})`, { cause: err, code });
  }
  return err instanceof Error ? err : new Error(String(err));
}
