// The storage URL (STORAGE_ENGINE / --storage), parsed once into a typed value that config,
// openStorage, DescribeLogDirs and `minnow backup` all take. Forms as Tansu writes them:
// sqlite://relative/path.db, sqlite:///absolute/path.db, sqlite:path.db, memory:// (or memory:),
// postgres://user[:password]@host[:port]/db (docs/postgres.md; the password may come from PGPASSWORD).
// A query string passes engine options, e.g. sqlite://data/minnow.db?synchronous=full.
import { isPostgresUrl, postgresPoolConfig, redactPostgresUrl } from './postgres/url';

/** The one default, for `minnow serve` and `minnow backup` alike. */
export const DEFAULT_STORAGE_URL = 'sqlite://./data/minnow.db';

/** The environment variable that names it (Tansu's name, so its compose files work). */
export const STORAGE_URL_ENV = 'STORAGE_ENGINE';

const STORAGE_URL_EXPECTED =
  'sqlite://PATH (relative), sqlite:///PATH (absolute), sqlite:PATH, postgres://USER@HOST[:PORT]/DB or memory://, optionally ?synchronous=normal|full for sqlite';

export type StorageUrl =
  | { kind: 'memory'; /** As given, for logs and Storage.url. */ url: string }
  | {
      kind: 'postgres';
      /** Without its password (as postgres://user:***@host/db), for logs and Storage.url. */
      url: string;
      /** As given, password included: only for connecting, never for logs. */
      connectionString: string;
    }
  | {
      kind: 'sqlite';
      url: string;
      /** The database file, relative to the working directory unless absolute. */ path: string;
      /** ?synchronous=, which wins over SQLITE_SYNCHRONOUS. */ synchronous?: 'normal' | 'full';
    };

export class StorageUrlError extends Error {
  override readonly name = 'StorageUrlError';
}

/** Throws StorageUrlError naming the URL, what is wrong and the forms expected. */
export function parseStorageUrl(url: string): StorageUrl {
  const [base = '', query] = splitOnce(url, '?');
  if (base === 'memory:' || base === 'memory://') {
    if (query !== undefined) throw new StorageUrlError(`storage url "${url}": memory:// takes no options`);
    return { kind: 'memory', url };
  }
  if (isPostgresUrl(url)) {
    const redacted = redactPostgresUrl(url);
    try {
      postgresPoolConfig(url);
    } catch (err) {
      throw new StorageUrlError((err as Error).message);
    }
    // Non-enumerable: a config dump or JSON log of the parsed URL never shows the password.
    const target = { kind: 'postgres', url: redacted } as Extract<StorageUrl, { kind: 'postgres' }>;
    Object.defineProperty(target, 'connectionString', { value: url, enumerable: false });
    return target;
  }
  if (!base.startsWith('sqlite:'))
    throw new StorageUrlError(`unknown storage url "${url}", expected ${STORAGE_URL_EXPECTED}`);
  // sqlite://a/b.db is relative (a/b.db), sqlite:///a/b.db absolute (/a/b.db), sqlite:a/b.db relative.
  const rest = base.slice('sqlite:'.length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '' || path.endsWith('/'))
    throw new StorageUrlError(`storage url "${url}" has no database file name, expected ${STORAGE_URL_EXPECTED}`);
  const target: StorageUrl = { kind: 'sqlite', url, path };
  for (const [key, value] of new URLSearchParams(query ?? '')) {
    if (key === 'synchronous' && (value === 'normal' || value === 'full')) target.synchronous = value;
    else
      throw new StorageUrlError(
        `storage url "${url}": unknown option ${key}=${value}; supported: synchronous=normal|full`,
      );
  }
  return target;
}

/** The URL a command uses: its --storage flag, else STORAGE_ENGINE, else the default. */
export function storageUrlFrom(flag: string | undefined, env: NodeJS.ProcessEnv): StorageUrl {
  const fromEnv = env[STORAGE_URL_ENV];
  return parseStorageUrl(flag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_STORAGE_URL));
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}
