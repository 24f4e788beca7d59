// bench/sqlite-space.ts: where a SQLite file's bytes go (issue 33 goal 5's measurement).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renderSpace, sqliteSpace } from '../../bench/sqlite-space';

describe('the space report of a SQLite file', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-space-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accounts for every page, and shows a 15.5 KB batch leaving most of a leaf page unused at 8 KiB pages', () => {
    const file = path.join(dir, 'm.db');
    const db = new Database(file);
    db.pragma('page_size = 8192');
    db.exec('CREATE TABLE record_batch (base_offset INTEGER PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO record_batch (base_offset, size, data) VALUES (?, ?, ?)');
    // kafka-producer-perf-test's batches of 1 KiB records: 15 records in its 16 KiB batch.size.
    for (let i = 0; i < 50; i++) insert.run(i * 15, 15556, Buffer.alloc(15556, i));
    db.close();
    const r = sqliteSpace(file);
    expect(r.pageSize).toBe(8192);
    expect(r.batches).toBe(50);
    expect(r.batchBytes).toBe(50 * 15556);
    expect(r.rows.reduce((s, x) => s + x.bytes, 0) + r.freelistBytes).toBe(r.fileBytes);
    const leaf = r.rows.find((x) => x.name === 'record_batch' && x.pagetype === 'leaf')!;
    const overflow = r.rows.find((x) => x.name === 'record_batch' && x.pagetype === 'overflow')!;
    // One row a leaf page (its ~7.4 KB local part) and one full overflow page: ~5 % unused.
    expect(leaf.cells).toBe(leaf.pages);
    expect(overflow.unused).toBe(0);
    expect(leaf.unused / r.batchBytes).toBeGreaterThan(0.04);
    expect(renderSpace(r, 50 * 15 * 1024)).toMatch(/record_batch \/ leaf: 50, 409600 \(0\.533\d per payload byte\)/);
  });
});
