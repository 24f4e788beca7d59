// Opens the storage engine a parsed storage URL names (storage-url.ts): sqlite:// or memory://.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryStorage } from './memory/memory-storage';
import { SqliteStorage } from './sqlite/sqlite-storage';
import { StorageError } from './storage';
import type { Storage } from './storage';
import { parseStorageUrl, StorageUrl } from './storage-url';

export interface OpenStorageOptions {
  /** SQLite only; see PragmaOptions.synchronous. The URL's ?synchronous= wins over this. */
  synchronous?: 'normal' | 'full';
  /** SQLite only; see PragmaOptions.walMaxBytes. */
  walMaxBytes?: number;
  /** SQLite only: where start-up notes go (see SqliteStorageOptions.warn). */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
}

/** `url` as parsed by config, or as text (tests, scripts): parsed here with the same parser. */
export function openStorage(url: StorageUrl | string, opts: OpenStorageOptions = {}): Storage {
  const target = typeof url === 'string' ? parseStorageUrl(url) : url;
  if (target.kind === 'memory') return new MemoryStorage(target.url);
  if (target.kind === 'postgres')
    throw new StorageError(`${target.url}: open it with PostgresStorage.open (asynchronous)`);
  mkdirSync(dirname(target.path), { recursive: true });
  return new SqliteStorage(target.path, {
    url: target.url,
    synchronous: target.synchronous ?? opts.synchronous ?? 'normal',
    ...(opts.walMaxBytes !== undefined && { walMaxBytes: opts.walMaxBytes }),
    warn: opts.warn,
  });
}
