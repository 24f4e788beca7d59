// Opens the storage engine a parsed storage URL names (storage-url.ts): sqlite://, memory:// or postgres://.
// The broker and tools hold it as AsyncStorage (issue 18); the in-process engines are handed over
// through promised(), so they still answer synchronously inside (group commit unchanged).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryStorage } from './memory/memory-storage';
import { SqliteStorage } from './sqlite/sqlite-storage';
import { StorageError } from './storage';
import type { AsyncStorage, SyncStorage } from './storage';
import { parseStorageUrl, StorageUrl } from './storage-url';
import { promised } from './sync-adapter';

export interface OpenStorageOptions {
  /** SQLite only; see PragmaOptions.synchronous. The URL's ?synchronous= wins over this. */
  synchronous?: 'normal' | 'full';
  /** SQLite only; see PragmaOptions.walMaxBytes. */
  walMaxBytes?: number;
  /** SQLite only: where start-up notes go (see SqliteStorageOptions.warn). */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
}

/** `url` as parsed by config, or as text (tests, scripts): parsed here with the same parser. */
export async function openStorage(url: StorageUrl | string, opts: OpenStorageOptions = {}): Promise<AsyncStorage> {
  const target = typeof url === 'string' ? parseStorageUrl(url) : url;
  if (target.kind === 'postgres') {
    // Loaded only when asked for: a sqlite:// broker never loads node-postgres.
    // require, not import(): tsx runs the sources (minnow serve in a checkout) as CommonJS, where
    // import() of an extensionless path fails with "Cannot find module".
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { PostgresStorage } = require('./postgres/postgres-storage') as typeof import('./postgres/postgres-storage');
    return PostgresStorage.open(target.connectionString);
  }
  return promised(openSyncStorage(target, opts));
}

/** The in-process engines themselves (sqlite://, memory://), for tools and tests that need them synchronous. */
export function openSyncStorage(url: StorageUrl | string, opts: OpenStorageOptions = {}): SyncStorage {
  const target = typeof url === 'string' ? parseStorageUrl(url) : url;
  if (target.kind === 'memory') return new MemoryStorage(target.url);
  if (target.kind === 'postgres')
    throw new StorageError(`${target.url}: a network engine, opened by openStorage (asynchronous)`);
  mkdirSync(dirname(target.path), { recursive: true });
  return new SqliteStorage(target.path, {
    url: target.url,
    synchronous: target.synchronous ?? opts.synchronous ?? 'normal',
    ...(opts.walMaxBytes !== undefined && { walMaxBytes: opts.walMaxBytes }),
    warn: opts.warn,
  });
}
