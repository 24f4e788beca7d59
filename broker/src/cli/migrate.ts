// `minnow migrate sqlite://PATH postgres://...`: moves a single-node broker's state into an empty
// PostgreSQL database (issue 18 "Moving up"), then verifies it; exits 1 on any difference.
import { parseArgs } from 'node:util';
import { UsageError } from '../args';
import { migrateSqliteToPostgres, verifyMigration } from '../storage/migrate/migrate';
import { formatReport } from '../storage/migrate/verify';
import { isPostgresUrl, redactPostgresUrl } from '../storage/postgres/url';
import { parseStorageUrl, StorageUrlError } from '../storage/storage-url';

const USAGE = `usage: minnow migrate sqlite://PATH postgres://USER@HOST[:PORT]/DB [--verify-only] [--chunk-mb N]
Stop the broker first. Copies topics, configs, batches, producer state, group offsets, transactions,
ACLs, quotas, users and the cluster id into an EMPTY PostgreSQL database, then compares both sides
(per table row counts; per partition offsets, batch count and an md5 of the batches) and prints
the comparison; exits 1 on any difference. --verify-only compares without copying.`;

export async function migrateCommand(
  argv: string[],
  out: (line: string) => void = console.log,
  progress: (line: string) => void = console.error,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'verify-only': { type: 'boolean' },
      'chunk-mb': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const [from, to, ...extra] = positionals;
  if (!from || !to || extra.length > 0) throw new UsageError(USAGE);
  let source;
  try {
    source = parseStorageUrl(from);
  } catch (err) {
    if (err instanceof StorageUrlError) throw new UsageError(`${err.message}\n\n${USAGE}`);
    throw err;
  }
  if (source.kind !== 'sqlite') throw new UsageError(`${from}: the source must be a sqlite:// database\n\n${USAGE}`);
  if (!isPostgresUrl(to))
    throw new UsageError(`${redactPostgresUrl(to)}: the target must be a postgres:// URL\n\n${USAGE}`);
  const chunkMb = values['chunk-mb'] === undefined ? 8 : Number(values['chunk-mb']);
  if (!(chunkMb > 0)) throw new UsageError(`--chunk-mb ${values['chunk-mb']}: expected a positive number`);

  const report = values['verify-only']
    ? await verifyMigration(source.path, to)
    : await migrateSqliteToPostgres(source.path, to, { chunkBytes: chunkMb * 1048576, progress });
  out(formatReport(report));
  const bad = report.rows.filter((r) => !r.ok).length;
  if (bad > 0) {
    progress(`migrate: ${bad} difference(s) between ${from} and the target: do not start brokers on it`);
    return 1;
  }
  progress(`migrate: verified: the target matches ${from}; start the brokers with STORAGE_ENGINE=postgres://...`);
  return 0;
}
