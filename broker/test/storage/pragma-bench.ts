// Measures the SQLite settings docs/design.md asks to pick on purpose: page_size and wal_autocheckpoint
// for the produce path (1 MiB transactions of 16 KiB blobs), plus a sequential read-back.
// Run: npx tsx test/storage/pragma-bench.ts [totalMiB] [reps] [txnKiB] [grid|focus]
// (not a jest test: it takes minutes). txnKiB 1024 is a big group commit; 32 is closer to the
// t3.micro seed load (7 MB/s committed every few milliseconds).
// wal_autocheckpoint counts pages, so 1000 pages is 4 MiB of WAL at 4 KiB pages but 64 MiB at
// 64 KiB pages; the grid therefore also fixes the WAL size in bytes to compare page sizes fairly.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const totalMiB = Number(process.argv[2] ?? 512);
const reps = Number(process.argv[3] ?? 3);
const blobBytes = 16 * 1024;
const txnBytes = Number(process.argv[4] ?? 1024) * 1024;
const focus = process.argv[5] === 'focus';
const perTxn = txnBytes / blobBytes;

function run(pageSize: number, autocheckpoint: number, synchronous: string) {
  const dir = mkdtempSync(join(tmpdir(), 'minnow-bench-'));
  const db = new Database(join(dir, 'b.db'));
  db.pragma(`page_size = ${pageSize}`);
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  db.pragma('cache_size = -8192');
  db.exec(`CREATE TABLE record_batch (partition_id INTEGER NOT NULL, base_offset INTEGER NOT NULL,
    last_offset INTEGER NOT NULL, max_timestamp INTEGER NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (partition_id, base_offset))`);
  // Like the broker, each transaction also rewrites the partitions' high watermarks (hot pages).
  db.exec('CREATE TABLE partition (id INTEGER PRIMARY KEY, high_watermark INTEGER NOT NULL)');
  db.exec('INSERT INTO partition VALUES (0, 0), (1, 0), (2, 0), (3, 0)');
  const hw = db.prepare('UPDATE partition SET high_watermark = ? WHERE id = ?');
  const ins = db.prepare('INSERT INTO record_batch VALUES (?, ?, ?, ?, ?, ?)');
  const blob = randomBytes(blobBytes); // random, like compressed batches
  let offset = 0;
  const txn = db.transaction(() => {
    for (let i = 0; i < perTxn; i++) {
      ins.run(i % 4, offset, offset + 15, Date.now(), blobBytes, blob);
      hw.run(offset + 16, i % 4);
      offset += 16;
    }
  });
  const txns = (totalMiB * 1024 * 1024) / txnBytes;
  const lat: number[] = [];
  const t0 = process.hrtime.bigint();
  for (let t = 0; t < txns; t++) {
    const s = process.hrtime.bigint();
    txn();
    lat.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  const writeS = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  const r0 = process.hrtime.bigint();
  let bytes = 0;
  for (const row of db.prepare('SELECT data FROM record_batch WHERE partition_id = 1 ORDER BY base_offset').iterate()) {
    bytes += (row as { data: Buffer }).data.length;
  }
  const readS = Number(process.hrtime.bigint() - r0) / 1e9;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const fileMiB = statSync(join(dir, 'b.db')).size / 1048576;
  rmSync(dir, { recursive: true, force: true });
  return {
    pageSize,
    autocheckpoint,
    synchronous,
    writeMiBs: +(totalMiB / writeS).toFixed(1),
    p50Ms: +lat[Math.floor(lat.length * 0.5)]!.toFixed(2),
    p99Ms: +lat[Math.floor(lat.length * 0.99)]!.toFixed(2),
    maxMs: +lat[lat.length - 1]!.toFixed(2),
    readMiBs: +(bytes / 1048576 / readS).toFixed(1),
    fileMiB: +fileMiB.toFixed(1),
  };
}

type Row = ReturnType<typeof run>;
const median = (rs: Row[], k: keyof Row) =>
  [...rs].map((r) => r[k] as number).sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
function measure(pageSize: number, autocheckpoint: number, synchronous: string) {
  const rs = Array.from({ length: reps }, () => run(pageSize, autocheckpoint, synchronous));
  const out: Record<string, unknown> = {
    pageSize,
    ckptPages: autocheckpoint,
    walMiB: (autocheckpoint * pageSize) / 1048576,
    synchronous,
  };
  for (const k of ['writeMiBs', 'p50Ms', 'p99Ms', 'maxMs', 'readMiBs', 'fileMiB'] as const) out[k] = median(rs, k);
  console.log(JSON.stringify(out));
  return out;
}

const rows = [];
for (const sync of focus ? ['NORMAL'] : ['NORMAL', 'FULL']) {
  for (const pageSize of focus ? [4096, 8192, 16384] : [4096, 8192, 16384, 65536]) {
    const walSizes = focus
      ? new Set([(4 * 1048576) / pageSize, (16 * 1048576) / pageSize, (40 * 1048576) / pageSize])
      : new Set([1000, 10000, (4 * 1048576) / pageSize, (16 * 1048576) / pageSize, (40 * 1048576) / pageSize]);
    for (const ckpt of [...walSizes].sort((a, b) => a - b)) rows.push(measure(pageSize, ckpt, sync));
  }
}
console.table(rows);
