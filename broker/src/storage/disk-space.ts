// Free space on the file system holding the database: a floor below which Produce is refused
// (MINNOW_MIN_FREE_BYTES, Redpanda's storage_min_free_bytes idea), and a reserve file (Redpanda's
// "ballast file") given back to the file system when the disk fills up anyway (another program's
// logs, a WAL that grew): with it the broker can still start (SQLite's -shm file needs 32 KiB),
// serve reads, and delete records and run retention, whose commits need a little WAL room.
//
// Space counts what SQLite can reuse too: pages that DeleteRecords or retention freed stay in
// the file (auto_vacuum=INCREMENTAL gives them back to the file system only in small steps, and
// not at all on a full disk) and new batches fill them before the file grows.
import * as fs from 'node:fs';
import * as path from 'node:path';

const MiB = 1024 * 1024;

/**
 * The reserve's size: a sixteenth of the floor, at most 16 MiB (the default floor's): -shm
 * (32 KiB) plus WAL room for deleting some thousand batches and the checkpoints behind them.
 */
export function reserveBytesFor(floorBytes: number): number {
  return Math.min(16 * MiB, Math.floor(floorBytes / 16 / 65536) * 65536);
}

/** The free-space figure is trusted for this long, or until this many bytes were appended. */
const RECHECK_MS = 1000;
const RECHECK_BYTES = 8 * MiB;
/** At most one "disk full" log line per this long. */
const LOG_EVERY_MS = 60_000;

export function reservePathFor(dbPath: string): string {
  return `${dbPath}.reserve`;
}

/** Bytes a non-root writer may still use on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * Called before the database is opened: if the reserve file exists and the file system has less
 * room than the reserve holds, deletes it so SQLite can start. Returns the bytes free before and
 * released, or undefined when nothing was done.
 */
export function releaseReserveIfFull(dbPath: string): { freeBefore: number; released: number } | undefined {
  const reserve = reservePathFor(dbPath);
  try {
    const size = fs.statSync(reserve).size;
    const free = freeBytes(path.dirname(dbPath));
    if (free >= size) return undefined;
    fs.unlinkSync(reserve);
    return { freeBefore: free, released: size };
  } catch {
    return undefined; // no reserve, or no statfs here to judge by
  }
}

export interface DiskSpaceOptions {
  dbPath: string;
  /** Produce is refused while fewer bytes than this are free (0: never). */
  floorBytes: number;
  /** Bytes inside the database SQLite will reuse before growing the file (its free pages). */
  reusableBytes?: () => number;
  log: (msg: string, fields: Record<string, unknown>) => void;
  clock?: () => number;
}

export interface SpaceCheck {
  ok: boolean;
  free: number;
  /** Why produce is refused, for the client and the log. */
  message: string;
}

export class DiskSpace {
  readonly dir: string;
  readonly reservePath: string;
  private readonly clock: () => number;
  private last: SpaceCheck | undefined;
  private checkedAt = -Infinity;
  private appendedSinceCheck = 0;
  private lastLogAt = -Infinity;
  private suppressedLogs = 0;

  constructor(private readonly o: DiskSpaceOptions) {
    this.dir = path.dirname(path.resolve(o.dbPath));
    this.reservePath = reservePathFor(o.dbPath);
    this.clock = o.clock ?? Date.now;
  }

  /** The cached verdict, refreshed after RECHECK_MS or RECHECK_BYTES appended. */
  check(): SpaceCheck {
    const now = this.clock();
    if (this.last && now - this.checkedAt < RECHECK_MS && this.appendedSinceCheck < RECHECK_BYTES) return this.last;
    return this.refresh();
  }

  /** Space was just freed (DeleteRecords): the next check looks again, so produce resumes at once. */
  invalidate(): void {
    this.checkedAt = -Infinity;
  }

  /** Counts bytes just appended, so a fast producer cannot outrun the check by much. */
  appended(bytes: number): void {
    this.appendedSinceCheck += bytes;
  }

  refresh(): SpaceCheck {
    this.checkedAt = this.clock();
    this.appendedSinceCheck = 0;
    let fsFree: number;
    let free: number;
    try {
      fsFree = freeBytes(this.dir);
      free = fsFree + (this.o.reusableBytes?.() ?? 0);
    } catch {
      return (this.last = { ok: true, free: -1, message: '' }); // no statfs: no floor
    }
    const ok = free >= this.o.floorBytes;
    const message = ok
      ? ''
      : `disk full: ${free} bytes free on ${this.dir}, floor ${this.o.floorBytes} (MINNOW_MIN_FREE_BYTES); delete records, lower retention or grow the volume`;
    if (!ok) this.logFull(free, 'produce refused below the free-space floor');
    else this.ensureReserve(fsFree);
    return (this.last = { ok, free, message });
  }

  /**
   * A write failed for want of space: give the reserve back to the file system so the writes
   * that free space (DeleteRecords, retention) and the clean stop can still commit. Returns the
   * bytes released (0: there was no reserve left).
   */
  full(): number {
    const released = this.releaseReserve();
    let free = -1;
    try {
      free = freeBytes(this.dir);
    } catch {
      // keep -1
    }
    this.logFull(
      free,
      released > 0
        ? `a write failed: SQLite found the disk full; released the ${released}-byte reserve file ${this.reservePath}`
        : 'a write failed: SQLite found the disk full',
    );
    this.checkedAt = -Infinity; // the next check looks again
    return released;
  }

  /** Deletes the reserve file; returns its size (0 if there was none). */
  releaseReserve(): number {
    try {
      const size = fs.statSync(this.reservePath).size;
      fs.unlinkSync(this.reservePath);
      return size;
    } catch {
      return 0;
    }
  }

  /** Writes the reserve file when missing and there is room for it above the floor. */
  ensureReserve(fsFree: number): void {
    const size = reserveBytesFor(this.o.floorBytes);
    if (size === 0) return; // floor off: no reserve either
    if (fsFree < this.o.floorBytes + size || fs.existsSync(this.reservePath)) return;
    const tmp = `${this.reservePath}.tmp`;
    try {
      // Real blocks (zeros written, not a sparse file): a sparse reserve would free nothing.
      const chunk = Buffer.alloc(Math.min(MiB, size));
      const fd = fs.openSync(tmp, 'w');
      try {
        // No fsync: the file system allocates the blocks at write time (ext4's delayed allocation
        // reserves them too); after a power loss the reserve is simply written again.
        for (let written = 0; written < size; written += chunk.length) fs.writeSync(fd, chunk);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, this.reservePath);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      this.o.log('could not write the disk reserve file', { path: this.reservePath, err });
    }
  }

  private logFull(free: number, what: string): void {
    const now = this.clock();
    if (now - this.lastLogAt < LOG_EVERY_MS) {
      this.suppressedLogs++;
      return;
    }
    this.o.log(`disk full: ${free} bytes free on ${this.dir}`, {
      what,
      floor: this.o.floorBytes,
      repeatsSinceLastLine: this.suppressedLogs,
    });
    this.lastLogAt = now;
    this.suppressedLogs = 0;
  }
}
