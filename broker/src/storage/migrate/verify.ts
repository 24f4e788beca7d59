// Checks a migration: per table the row count and a digest of its rows; per partition the log
// start offset, high watermark, batch count, offset range and a checksum of the batches' bytes,
// each computed on both sides independently (the checksum in SQL on PostgreSQL). That checksum is
// md5 over the concatenated per-batch md5s (hex) in base offset order: one flipped byte changes
// it, while PostgreSQL never builds a partition's whole log as one value (bytea stops at 1 GB).
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { Queryable } from '../postgres/db';
import { sourceColumns } from './source';
import { quoteIdent } from './target';
import { BATCH_TABLE, COPIED_TABLES } from './tables';

export interface VerifyRow {
  what: string;
  source: string;
  target: string;
  ok: boolean;
}

export interface VerifyReport {
  ok: boolean;
  rows: VerifyRow[];
}

interface PartitionFacts {
  name: string;
  logStart: number;
  highWatermark: number;
  batches: number;
  first: number | null;
  last: number | null;
  md5: string;
}

const EMPTY_MD5 = createHash('md5').digest('hex');

const PARTITIONS_SQL = `SELECT p.id, t.name, p.partition_index, p.log_start_offset, p.high_watermark,
  (SELECT count(*) FROM record_batch b WHERE b.partition_id = p.id) AS batches,
  (SELECT min(base_offset) FROM record_batch b WHERE b.partition_id = p.id) AS first,
  (SELECT max(last_offset) FROM record_batch b WHERE b.partition_id = p.id) AS last
  FROM partition p JOIN topic t ON t.id = p.topic_id ORDER BY t.name, p.partition_index`;

interface PartitionRow {
  id: number;
  name: string;
  partition_index: number;
  log_start_offset: number;
  high_watermark: number;
  batches: number;
  first: number | null;
  last: number | null;
}

function facts(rows: PartitionRow[], md5s: Map<number, string>): Map<string, PartitionFacts> {
  const out = new Map<string, PartitionFacts>();
  for (const r of rows) {
    const name = `${r.name}-${r.partition_index}`;
    out.set(name, {
      name,
      logStart: Number(r.log_start_offset),
      highWatermark: Number(r.high_watermark),
      batches: Number(r.batches),
      first: r.first === null ? null : Number(r.first),
      last: r.last === null ? null : Number(r.last),
      md5: md5s.get(Number(r.id)) ?? EMPTY_MD5,
    });
  }
  return out;
}

function sourceFacts(src: Database.Database): Map<string, PartitionFacts> {
  const md5s = new Map<number, string>();
  let current: number | undefined;
  let hash = createHash('md5');
  const select = src.prepare(`SELECT partition_id, data FROM ${BATCH_TABLE} ORDER BY partition_id, base_offset`).raw();
  for (const [id, data] of select.iterate() as IterableIterator<[number, Buffer]>) {
    if (id !== current) {
      if (current !== undefined) md5s.set(current, hash.digest('hex'));
      current = id;
      hash = createHash('md5');
    }
    hash.update(createHash('md5').update(data).digest('hex'));
  }
  if (current !== undefined) md5s.set(current, hash.digest('hex'));
  return facts(src.prepare(PARTITIONS_SQL).all() as PartitionRow[], md5s);
}

async function targetFacts(q: Queryable): Promise<Map<string, PartitionFacts>> {
  const sums = await q.query<{ partition_id: number; md5: string }>(
    `SELECT partition_id, md5(string_agg(md5(data), '' ORDER BY base_offset)) AS md5
     FROM ${BATCH_TABLE} GROUP BY partition_id`,
  );
  const md5s = new Map(sums.map((s) => [Number(s.partition_id), s.md5]));
  return facts(await q.query<PartitionRow & Record<string, unknown>>(PARTITIONS_SQL), md5s);
}

/**
 * md5 of a table's rows, each as JSON of its values (numbers, strings, null, bytes as hex), sorted:
 * the two databases' collations order text differently, so neither side's ORDER BY is used.
 */
function digest(rows: unknown[][]): string {
  const lines = rows.map((row) =>
    JSON.stringify(
      row.map((v) => (Buffer.isBuffer(v) ? `x${v.toString('hex')}` : typeof v === 'bigint' ? Number(v) : v)),
    ),
  );
  const hash = createHash('md5');
  for (const line of lines.sort()) hash.update(`${line}\n`);
  return hash.digest('hex');
}

const range = (f: PartitionFacts | undefined) =>
  f ? `${f.batches} batches ${f.first ?? '-'}..${f.last ?? '-'} log ${f.logStart}..${f.highWatermark}` : 'missing';

/** Compares the source and the target; `ok` only when every row matches. */
export async function verify(src: Database.Database, q: Queryable): Promise<VerifyReport> {
  const rows: VerifyRow[] = [];
  const add = (what: string, source: string, target: string) =>
    rows.push({ what, source, target, ok: source === target });
  for (const t of COPIED_TABLES) {
    const s = src.prepare(`SELECT count(*) FROM ${t.name}`).pluck().get() as number;
    const [row] = await q.query<{ n: number }>(`SELECT count(*) AS n FROM ${t.name}`);
    add(`rows ${t.name}`, String(s), String(Number(row!.n)));
  }
  // Every other table's content, row for row (the batches are compared per partition below).
  for (const t of COPIED_TABLES) {
    if (t.name === BATCH_TABLE) continue;
    const columns = sourceColumns(src, t.name);
    const list = columns.map(quoteIdent).join(', ');
    const s = src.prepare(`SELECT ${list} FROM ${t.name}`).raw().all() as unknown[][];
    const rowsOf = await q.query(`SELECT ${list} FROM ${t.name}`);
    add(`content ${t.name}`, digest(s), digest(rowsOf.map((r) => columns.map((c) => r[c]))));
  }
  const source = sourceFacts(src);
  const target = await targetFacts(q);
  for (const name of [...new Set([...source.keys(), ...target.keys()])].sort()) {
    const s = source.get(name);
    const t = target.get(name);
    add(`partition ${name}`, range(s), range(t));
    add(`md5 ${name}`, s?.md5 ?? 'missing', t?.md5 ?? 'missing');
  }
  return { ok: rows.every((r) => r.ok), rows };
}

/** The report as an aligned text table (what, source, target, ok). */
export function formatReport(report: VerifyReport): string {
  const header: [string, string, string, string] = ['what', 'source', 'target', 'ok'];
  const lines = [header, ...report.rows.map((r) => [r.what, r.source, r.target, r.ok ? 'ok' : 'DIFFERENT'])];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines
    .map((l) =>
      l
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
