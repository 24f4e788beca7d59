// Picks the storage engine from a URL (as Tansu does): sqlite://relative/path.db,
// sqlite:///absolute/path.db, sqlite:path.db, or memory:// (memory:). A query string passes
// engine options, e.g. sqlite://data/minnow.db?synchronous=full.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryStorage } from './memory/memory-storage';
import { SqliteStorage } from './sqlite/sqlite-storage';
import type { Storage } from './storage';

export interface OpenStorageOptions {
  /** SQLite only; see PragmaOptions.synchronous. The URL's ?synchronous= wins over this. */
  synchronous?: 'normal' | 'full';
  /** SQLite only; see PragmaOptions.walMaxBytes. */
  walMaxBytes?: number;
  /** SQLite only: where start-up notes go (see SqliteStorageOptions.warn). */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
}

const EXPECTED = 'expected sqlite://PATH (relative), sqlite:///PATH (absolute), sqlite:PATH or memory://';

export function openStorage(url: string, opts: OpenStorageOptions = {}): Storage {
  const target = parseStorageUrl(url);
  if (target.kind === 'memory') return new MemoryStorage(url);
  mkdirSync(dirname(target.path), { recursive: true });
  return new SqliteStorage(target.path, { url, synchronous: target.synchronous ?? opts.synchronous ?? 'normal', ...(opts.walMaxBytes !== undefined && { walMaxBytes: opts.walMaxBytes }), warn: opts.warn });
}

export type StorageTarget = { kind: 'memory' } | { kind: 'sqlite'; path: string; synchronous?: 'normal' | 'full' };

export function parseStorageUrl(url: string): StorageTarget {
  const [base = '', query] = splitOnce(url, '?');
  if (base === 'memory:' || base === 'memory://') {
    if (query !== undefined) throw new Error(`storage url "${url}": memory:// takes no options`);
    return { kind: 'memory' };
  }
  if (!base.startsWith('sqlite:')) throw new Error(`unknown storage url "${url}", ${EXPECTED}`);
  // sqlite://a/b.db is relative (a/b.db), sqlite:///a/b.db absolute (/a/b.db), sqlite:a/b.db relative.
  const rest = base.slice('sqlite:'.length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '' || path.endsWith('/')) throw new Error(`storage url "${url}" has no database file name, ${EXPECTED}`);
  const target: StorageTarget = { kind: 'sqlite', path };
  for (const [key, value] of new URLSearchParams(query ?? '')) {
    if (key === 'synchronous' && (value === 'normal' || value === 'full')) target.synchronous = value;
    else throw new Error(`storage url "${url}": unknown option ${key}=${value}; supported: synchronous=normal|full`);
  }
  return target;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}
