// postgres:// URLs (docs/postgres.md): postgres://user[:password]@host[:port]/db, as libpq and
// node-postgres write them (postgresql:// too). A password missing from the URL comes from
// PGPASSWORD, as node-postgres does. The password never appears in what minnow reports or logs.
// Two query options are minnow's own (the rest, e.g. sslmode, go to node-postgres):
// pool_max=N (connections per broker, default 10) and statement_timeout_ms=N (default 30000).
import type { PoolConfig } from 'pg';
import { StorageError } from '../storage';
import type { DbOptions } from './db';

const OWN_OPTIONS = { pool_max: 'max', statement_timeout_ms: 'statementTimeoutMs' } as const;

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** The URL with its password replaced by ***, for logs and Storage.url. */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}

export function postgresPoolConfig(url: string): { config: PoolConfig; redacted: string; options: DbOptions } {
  const redacted = redactPostgresUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StorageError(
      `storage url "${redacted}" is not a valid URL; expected postgres://user[:password]@host[:port]/db`,
    );
  }
  if (parsed.hostname === '' || parsed.pathname.length <= 1)
    throw new StorageError(
      `storage url "${redacted}" needs a host and a database: postgres://user[:password]@host[:port]/db`,
    );
  const options: DbOptions = {};
  for (const [param, key] of Object.entries(OWN_OPTIONS)) {
    const value = parsed.searchParams.get(param);
    if (value === null) continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new StorageError(`storage url "${redacted}": ${param}=${value} must be a positive integer`);
    options[key] = n;
    parsed.searchParams.delete(param);
  }
  return { config: { connectionString: parsed.toString() }, redacted, options };
}
