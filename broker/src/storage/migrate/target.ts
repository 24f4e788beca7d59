// The target of `minnow migrate`: a PostgreSQL database brought to the postgres:// engine's schema
// (postgres/schema.ts), which must hold nothing yet: a second run, or a database a broker already
// serves, is refused rather than merged into.
import { Db } from '../postgres/db';
import type { Queryable } from '../postgres/db';
import { migrate as migrateSchema } from '../postgres/schema';
import { postgresPoolConfig } from '../postgres/url';
import { StorageError } from '../storage';
import { COPIED_TABLES } from './tables';

export interface TargetColumn {
  name: string;
  /** GENERATED ALWAYS AS IDENTITY: inserting the source's id needs OVERRIDING SYSTEM VALUE. */
  identity: boolean;
}

/** Opens the target (no statement timeout: the checksums scan whole tables) and migrates its schema. */
export async function openTarget(url: string, nowMs: number): Promise<Db> {
  const { config, redacted } = postgresPoolConfig(url);
  const db = new Db({ ...config, application_name: 'minnow migrate' }, { max: 2, statementTimeoutMs: 0 });
  try {
    await migrateSchema(db, nowMs);
    return db;
  } catch (err) {
    await db.close();
    throw new StorageError(`target ${redacted}: ${(err as Error).message}`, { cause: err });
  }
}

export async function targetColumns(q: Queryable, table: string): Promise<TargetColumn[]> {
  const rows = await q.query<{ column_name: string; is_identity: string }>(
    `SELECT column_name, is_identity FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => ({ name: r.column_name, identity: r.is_identity === 'YES' }));
}

/** Throws unless every copied table exists in the target and is empty. */
export async function checkEmpty(q: Queryable): Promise<void> {
  for (const t of COPIED_TABLES) {
    if ((await targetColumns(q, t.name)).length === 0) {
      throw new StorageError(`the target has no table ${t.name}: its schema is not this minnow's`);
    }
    const [row] = await q.query<{ some: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${t.name}) AS some`);
    if (row!.some) {
      throw new StorageError(
        `the target database is not empty (table ${t.name} has rows): migrate copies into an empty database only; create a new one (CREATE DATABASE) and migrate into that`,
      );
    }
  }
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** One multi-row INSERT of `rows` (each in `columns` order). */
export async function insertRows(
  q: Queryable,
  table: string,
  columns: readonly TargetColumn[],
  rows: readonly unknown[][],
): Promise<void> {
  if (rows.length === 0) return;
  const overriding = columns.some((c) => c.identity) ? ' OVERRIDING SYSTEM VALUE' : '';
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const marks = row.map((v) => {
      values.push(v);
      return `$${values.length}`;
    });
    return `(${marks.join(', ')})`;
  });
  await q.query(
    `INSERT INTO ${table} (${columns.map((c) => quoteIdent(c.name)).join(', ')})${overriding} VALUES ${tuples.join(', ')}`,
    values,
  );
}

/**
 * Moves every sequence behind a copied table's column (identities, producer_id_seq) past the
 * highest id the source ever handed out, so new topics, partitions and producer ids never reuse one.
 */
export async function advanceSequences(q: Queryable, table: string, sourceSeq: number): Promise<void> {
  for (const c of await targetColumns(q, table)) {
    const [row] = await q.query<{ seq: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS seq', [
      table,
      c.name,
    ]);
    if (!row?.seq) continue;
    const [max] = await q.query<{ m: number | null }>(`SELECT max(${quoteIdent(c.name)}) AS m FROM ${table}`);
    const top = Math.max(sourceSeq, max?.m ?? 0);
    if (top > 0) await q.query('SELECT setval($1, $2, true)', [row.seq, top]);
  }
}
