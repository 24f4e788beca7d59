// Copies a stopped sqlite:// broker's tables into an empty postgres:// database, rows as they are
// (ids, offsets, producer state and the batches' bytes unchanged), so clients keep their offsets.
// The small tables go in one transaction; the batches partition by partition in base offset
// order, in chunks of about `chunkBytes`, each chunk one PostgreSQL transaction.
import type Database from 'better-sqlite3';
import type { Db, Queryable } from '../postgres/db';
import { StorageError } from '../storage';
import { sourceColumns, sourceSequence } from './source';
import { advanceSequences, insertRows, targetColumns } from './target';
import type { TargetColumn } from './target';
import { BATCH_TABLE, COPIED_TABLES } from './tables';
import type { CopiedTable } from './tables';

export interface CopyOptions {
  /** Bytes of batches per PostgreSQL transaction (default 8 MiB). */
  chunkBytes?: number;
  progress?: (line: string) => void;
}

/** Rows per INSERT statement: 11 columns x 500 stays far below PostgreSQL's 65535 parameters. */
const ROWS_PER_INSERT = 500;

/** The source columns of `table`, each matched to the target's (a column the target lacks is an error). */
async function columnsOf(src: Database.Database, q: Queryable, table: string): Promise<TargetColumn[]> {
  const target = new Map((await targetColumns(q, table)).map((c) => [c.name, c]));
  return sourceColumns(src, table).map((name) => {
    const c = target.get(name);
    if (!c)
      throw new StorageError(`the target's table ${table} has no column ${name}: its schema is not this minnow's`);
    return c;
  });
}

async function copyTable(src: Database.Database, q: Queryable, t: CopiedTable): Promise<number> {
  const columns = await columnsOf(src, q, t.name);
  const select = src.prepare(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${t.name} ORDER BY ${t.orderBy}`);
  const rows = select.raw().all() as unknown[][];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await insertRows(q, t.name, columns, rows.slice(i, i + ROWS_PER_INSERT));
  }
  return rows.length;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

async function copyBatches(src: Database.Database, db: Db, opts: CopyOptions): Promise<void> {
  const chunkBytes = opts.chunkBytes ?? 8 * 1048576;
  const columns = await columnsOf(src, db, BATCH_TABLE);
  const dataAt = columns.findIndex((c) => c.name === 'data');
  const partitions = src
    .prepare(
      `SELECT p.id, t.name, p.partition_index FROM partition p JOIN topic t ON t.id = p.topic_id
       WHERE EXISTS (SELECT 1 FROM record_batch b WHERE b.partition_id = p.id) ORDER BY p.id`,
    )
    .raw()
    .all() as [number, string, number][];
  const select = src
    .prepare(
      `SELECT ${columns.map((c) => c.name).join(', ')} FROM ${BATCH_TABLE} WHERE partition_id = ? ORDER BY base_offset`,
    )
    .raw();
  let total = 0;
  let reported = 0;
  for (const [n, [id, topic, index]] of partitions.entries()) {
    let chunk: unknown[][] = [];
    let bytes = 0;
    let batches = 0;
    let partitionBytes = 0;
    const flush = async () => {
      const rows = chunk;
      chunk = [];
      bytes = 0;
      await db.tx(async (q) => {
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          await insertRows(q, BATCH_TABLE, columns, rows.slice(i, i + ROWS_PER_INSERT));
        }
      });
    };
    for (const row of select.iterate(id) as IterableIterator<unknown[]>) {
      const size = (row[dataAt] as Buffer).length;
      chunk.push(row);
      bytes += size;
      partitionBytes += size;
      total += size;
      batches++;
      if (bytes >= chunkBytes || chunk.length >= 4 * ROWS_PER_INSERT) await flush();
      if (total - reported >= 256 * 1048576) {
        reported = total;
        opts.progress?.(`migrate: ${topic}-${index}: ${batches} batches so far (${mb(total)} copied in all)`);
      }
    }
    if (chunk.length > 0) await flush();
    opts.progress?.(
      `migrate: copied ${topic}-${index}: ${batches} batches, ${mb(partitionBytes)} (${n + 1}/${partitions.length} partitions, ${mb(total)} in all)`,
    );
  }
}

/** Copies every table; the target must be empty and migrated (target.ts). */
export async function copyAll(src: Database.Database, db: Db, opts: CopyOptions = {}): Promise<void> {
  const before = COPIED_TABLES.slice(
    0,
    COPIED_TABLES.findIndex((t) => t.name === BATCH_TABLE),
  );
  const after = COPIED_TABLES.filter((t) => t.name !== BATCH_TABLE && !before.includes(t));
  // Topics and partitions first (the batches reference them), then the batches in their own
  // transactions, then the rest (producer state, offsets, users ...) in one transaction.
  await db.tx(async (q) => {
    for (const t of before) {
      const rows = await copyTable(src, q, t); // not inside progress?.(): it would be skipped without one
      opts.progress?.(`migrate: ${t.name}: ${rows} rows`);
    }
  });
  await copyBatches(src, db, opts);
  await db.tx(async (q) => {
    for (const t of after) {
      const rows = await copyTable(src, q, t);
      opts.progress?.(`migrate: ${t.name}: ${rows} rows`);
    }
    for (const t of COPIED_TABLES) await advanceSequences(q, t.name, sourceSequence(src, t.name));
  });
}
