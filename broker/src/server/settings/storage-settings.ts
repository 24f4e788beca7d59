// Where state lives and how it is written: the database, its durability, the group commit, the
// WAL and disk-space bounds.
import {
  DEFAULT_STORAGE_URL,
  parseStorageUrl,
  STORAGE_URL_ENV,
  StorageUrl,
  StorageUrlError,
} from '../../storage/storage-url';
import { int, Setting } from './setting';

const storageUrlOrUndefined = (v: string) => {
  try {
    return parseStorageUrl(v);
  } catch (err) {
    if (err instanceof StorageUrlError) return undefined;
    throw err;
  }
};

export interface StorageSettings {
  storageUrl: StorageUrl;
  /** SQLite `synchronous`: normal (default) survives process crashes, full also power loss. */
  sqliteSynchronous: 'normal' | 'full';
  /** Least ms between the starts of two produce commits (group commit pacing, server/append-queue.ts). */
  commitIntervalMs: number;
  /** SQLite: the WAL size past which the checkpointer restarts the WAL (storage/sqlite/checkpointer.ts). */
  walMaxBytes: number;
  /** Produce is refused while the database's file system has less free space (storage/disk-space.ts). */
  minFreeBytes: number;
}

export const STORAGE_SETTINGS = [
  {
    key: 'storageUrl',
    env: STORAGE_URL_ENV,
    flag: 'storage',
    doc: 'where state lives',
    default: DEFAULT_STORAGE_URL,
    expected: 'sqlite://PATH, sqlite:///ABS/PATH, memory:// or postgres://USER[:PASSWORD]@HOST[:PORT]/DB',
    parse: storageUrlOrUndefined,
  },
  {
    key: 'sqliteSynchronous',
    env: 'SQLITE_SYNCHRONOUS',
    flag: 'sqlite-synchronous',
    doc: 'normal: durable across process crashes; full: fsync every commit, durable across power loss',
    default: 'normal',
    expected: 'normal|full',
    parse: (v: string) =>
      v.toLowerCase() === 'normal' || v.toLowerCase() === 'full' ? (v.toLowerCase() as 'normal' | 'full') : undefined,
  },
  {
    key: 'commitIntervalMs',
    env: 'MINNOW_COMMIT_INTERVAL_MS',
    flag: 'commit-interval-ms',
    doc: 'least time between two produce commits: requests arriving meanwhile share the next one (0: commit each event-loop turn)',
    default: '1',
    expected: 'an integer 0..1000',
    parse: int(0, 1000),
  },
  {
    key: 'walMaxBytes',
    env: 'MINNOW_WAL_MAX_BYTES',
    flag: 'wal-max-bytes',
    doc: 'SQLite: WAL size past which the broker checkpoints so its next commit starts the WAL over; the WAL stays near this under sustained produce (a running `minnow backup` pins it until it ends)',
    default: String(32 * 1024 * 1024),
    expected: 'an integer 1048576..1073741824',
    parse: int(2 ** 20, 2 ** 30),
  },
  // Disk space (storage/disk-space.ts). 256 MiB: 1.25 % of the kit's 20 GiB volume; room for a WAL
  // at its bound (32 MiB), the 16 MiB reserve file, half a minute of the seed workload's 7 MB/s
  // while an operator reacts, and the system's own logs. Redpanda's storage_min_free_bytes (5 GiB)
  // would be a quarter of that volume.
  {
    key: 'minFreeBytes',
    env: 'MINNOW_MIN_FREE_BYTES',
    flag: 'min-free-bytes',
    doc: 'produce is refused (POLICY_VIOLATION, "disk full: ...") while the database\'s file system has less free space than this, counting free pages inside the database; 0: off',
    default: '268435456',
    expected: 'an integer 0..1099511627776 (bytes)',
    parse: int(0, 2 ** 40),
  },
] as const satisfies readonly Setting<StorageSettings>[];
