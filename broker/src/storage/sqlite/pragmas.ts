// SQLite settings, each chosen on purpose (docs/design.md "SQLite settings"); the measurements behind
// page_size and wal_autocheckpoint come from test/storage/pragma-bench.ts.
import type Database from 'better-sqlite3';
import { StorageError } from '../storage';

export interface PragmaOptions {
  /**
   * normal: a commit returns once the WAL is written, not fsynced. A process crash loses nothing;
   * a power loss or kernel crash may lose the last commits (never corrupts). full: fsync per
   * commit, so an acknowledged produce survives power loss; group commit amortizes the fsync.
   */
  synchronous: 'normal' | 'full';
  /** Only takes effect when the file is created. */
  pageSize: number;
  /** Pages in the WAL that trigger a checkpoint inside the committing call (0: never). */
  walAutocheckpointPages: number;
  /**
   * Checkpoint from a worker thread every this many ms instead (0: off, use walAutocheckpointPages).
   * See checkpointer.ts.
   */
  checkpointIntervalMs: number;
  /**
   * Past this much WAL the checkpointer has the writer's connection catch up, so the next commit
   * starts the WAL over (checkpointer.ts): the WAL peaks near this plus one interval's writes.
   */
  walMaxBytes: number;
  /** The WAL file is truncated back to this size after a checkpoint. */
  journalSizeLimitBytes: number;
  /** SQLite's own page cache; small, since the OS page cache holds the file anyway. */
  cacheSizeKiB: number;
  /** Reads go through a memory map (no copy into SQLite's cache). Address space, not memory. */
  mmapSizeBytes: number;
  /** How long to wait for a lock held by another connection (a CLI backup or sqlite3 shell). */
  busyTimeoutMs: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_PRAGMAS: PragmaOptions = {
  synchronous: 'normal',
  // 8 KiB: 1.3-2x the commit throughput of 4 KiB for 16 KiB blobs and faster reads; 16 KiB was no
  // faster and wasted 13 % of the file (64 KiB: 34 %) against 6 % here.
  pageSize: 8192,
  // 2,048 pages of 8 KiB = 16 MiB of WAL per checkpoint: +33 % throughput over 4 MiB for 1 MiB
  // transactions; 40 MiB added only 5 % more. The checkpoint runs inside the commit that crosses
  // it, so the stall grows with the WAL (p99 33 / 70 / 150 ms at 4 / 16 / 40 MiB).
  walAutocheckpointPages: 2048,
  checkpointIntervalMs: 200,
  // 32 MiB, as journal_size_limit, so the WAL file's size stays where it was meant to be: at 8 MB/s
  // one catch-up checkpoint every ~4 s (1-17 ms on the event loop each); peak WAL measured 36-37 MB
  // after 20 s at 8 MB/s (312 MB without). Smaller means more catch-ups, not less disk I/O.
  walMaxBytes: 32 * MiB,
  journalSizeLimitBytes: 32 * MiB,
  // 2 MiB: reads go through the memory map, so this cache mostly holds a transaction's dirty pages
  // (SQLite spills bigger ones to the WAL early). Against 8 MiB: the same produce throughput with
  // 1 MB batches and ~6 MB less peak RSS (115 vs 120-123 MB, glibc keeps the freed pages).
  cacheSizeKiB: 2 * 1024,
  mmapSizeBytes: 256 * MiB,
  busyTimeoutMs: 5000,
};

export function applyPragmas(db: Database.Database, o: PragmaOptions): void {
  // page_size and auto_vacuum only apply before the first table is created (and page_size not
  // at all once in WAL mode), so they come first; on an existing file they are no-ops.
  db.pragma(`page_size = ${o.pageSize}`);
  db.pragma('auto_vacuum = INCREMENTAL');
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') {
    throw new StorageError(
      `SQLite refused WAL mode (journal_mode is "${mode}"); put the database on a local file system that supports shared memory`,
    );
  }
  db.pragma(`synchronous = ${o.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = ${-o.cacheSizeKiB}`);
  db.pragma(`mmap_size = ${o.mmapSizeBytes}`);
  db.pragma('temp_store = MEMORY');
  // With the checkpointer thread, the commit path never checkpoints.
  db.pragma(`wal_autocheckpoint = ${o.checkpointIntervalMs > 0 ? 0 : o.walAutocheckpointPages}`);
  db.pragma(`journal_size_limit = ${o.journalSizeLimitBytes}`);
  db.pragma(`busy_timeout = ${o.busyTimeoutMs}`);
}
