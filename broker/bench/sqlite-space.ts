// Where a minnow SQLite file's bytes go, from SQLite's dbstat virtual table (sqlite3_analyzer's
// source of figures): per table and index, the payload stored, the unused bytes of its pages
// (a batch's local part fills a b-tree leaf page on its own when the rest spills to overflow
// pages), b-tree overhead, and the freelist. Issue 33 goal 5 measured the disk ratio with it.
//   npx tsx bench/sqlite-space.ts FILE [--payload BYTES]  (--payload: record bytes sent, for ratios)
import Database from 'better-sqlite3';

export interface SpaceRow {
  name: string;
  pagetype: string;
  pages: number;
  bytes: number;
  payload: number;
  unused: number;
  cells: number;
}

export interface SpaceReport {
  pageSize: number;
  fileBytes: number;
  freelistBytes: number;
  /** By table or index and page kind (leaf, internal, overflow), largest first. */
  rows: SpaceRow[];
  /** Bytes of record_batch.data: the stored batches as produced. */
  batchBytes: number;
  batches: number;
}

export function sqliteSpace(file: string): SpaceReport {
  const db = new Database(file, { readonly: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pageCount = db.pragma('page_count', { simple: true }) as number;
    const freelist = db.pragma('freelist_count', { simple: true }) as number;
    const rows = db
      .prepare(
        `SELECT name, pagetype, count(*) AS pages, sum(pgsize) AS bytes, sum(payload) AS payload,
                sum(unused) AS unused, sum(ncell) AS cells
           FROM dbstat GROUP BY name, pagetype ORDER BY bytes DESC`,
      )
      .all() as SpaceRow[];
    const b = db.prepare('SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM record_batch').get() as {
      n: number;
      bytes: number;
    };
    return {
      pageSize,
      fileBytes: pageSize * pageCount,
      freelistBytes: pageSize * freelist,
      rows,
      batchBytes: b.bytes,
      batches: b.n,
    };
  } finally {
    db.close();
  }
}

export function renderSpace(r: SpaceReport, payloadBytes?: number): string {
  const per = (x: number) => (payloadBytes ? ` (${(x / payloadBytes).toFixed(4)} per payload byte)` : '');
  const L = [
    `page size ${r.pageSize}; file ${r.fileBytes} bytes${per(r.fileBytes)}; freelist ${r.freelistBytes}`,
    `record_batch: ${r.batches} batches, ${r.batchBytes} bytes of batches${per(r.batchBytes)}, ${r.batches ? Math.round(r.batchBytes / r.batches) : 0} bytes each on average`,
    'name / page kind: pages, bytes, payload, unused, cells',
  ];
  for (const x of r.rows.filter((y) => y.bytes > 8 * r.pageSize))
    L.push(`  ${x.name} / ${x.pagetype}: ${x.pages}, ${x.bytes}${per(x.bytes)}, ${x.payload}, ${x.unused}, ${x.cells}`);
  const small = r.rows.filter((y) => y.bytes <= 8 * r.pageSize);
  L.push(`  ${small.length} other tables and indexes: ${small.reduce((s, y) => s + y.bytes, 0)} bytes`);
  return L.join('\n');
}

if (require.main === module) {
  const [file, flag, value] = process.argv.slice(2);
  if (!file) throw new Error('usage: npx tsx bench/sqlite-space.ts FILE [--payload BYTES]');
  process.stdout.write(`${renderSpace(sqliteSpace(file), flag === '--payload' ? Number(value) : undefined)}\n`);
}
