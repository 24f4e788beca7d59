// `minnow migrate sqlite://... postgres://...` (issue 18 "Moving up", docs/postgres.md): a
// single-node state copied into an empty PostgreSQL database, then verified (verify.ts).
import { redactPostgresUrl } from '../postgres/url';
import { copyAll } from './copy';
import type { CopyOptions } from './copy';
import { openSource } from './source';
import { checkEmpty, openTarget } from './target';
import { verify } from './verify';
import type { VerifyReport } from './verify';

export interface MigrateOptions extends CopyOptions {
  nowMs?: number;
}

/** Copies `sourcePath` (its broker stopped) into the empty database `targetUrl`, then verifies. */
export async function migrateSqliteToPostgres(
  sourcePath: string,
  targetUrl: string,
  opts: MigrateOptions = {},
): Promise<VerifyReport> {
  const source = openSource(sourcePath);
  try {
    const db = await openTarget(targetUrl, opts.nowMs ?? Date.now());
    try {
      await checkEmpty(db);
      opts.progress?.(`migrate: copying ${sourcePath} into ${redactPostgresUrl(targetUrl)}`);
      await copyAll(source.db, db, opts);
      opts.progress?.('migrate: copied; verifying');
      return await verify(source.db, db);
    } finally {
      await db.close();
    }
  } finally {
    source.close();
  }
}

/** Compares `sourcePath` with a database it was migrated into (nothing is written). */
export async function verifyMigration(sourcePath: string, targetUrl: string): Promise<VerifyReport> {
  const source = openSource(sourcePath);
  try {
    const db = await openTarget(targetUrl, Date.now());
    try {
      return await verify(source.db, db);
    } finally {
      await db.close();
    }
  } finally {
    source.close();
  }
}
