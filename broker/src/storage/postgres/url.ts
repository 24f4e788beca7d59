// postgres:// URLs (docs/postgres.md): postgres://user[:password]@host[:port]/db, as libpq and
// node-postgres write them (postgresql:// too). A password missing from the URL comes from
// PGPASSWORD, as node-postgres does. The password never appears in what minnow reports or logs.
import type { PoolConfig } from 'pg';
import { StorageError } from '../storage';

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** The URL with its password replaced by ***, for logs and Storage.url. */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}

export function postgresPoolConfig(url: string): { config: PoolConfig; redacted: string } {
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
  return { config: { connectionString: url }, redacted };
}
