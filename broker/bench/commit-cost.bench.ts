// What one produce commit costs in CPU, by what it writes: the evidence for commit pacing
// (server/append-queue.ts) and for the schema's per-commit work. Commits back to back, each with
// one or more ~2 KiB batch blobs (the seed workload's requests carry 1-4 records of 1 KiB), on the
// broker's pragmas and schema with the checkpointer thread running, for:
//   update    the broker's transaction: INSERT record_batch + UPDATE partition (high watermark)
//   noupdate  without the UPDATE (one b-tree page less per commit)
//   rowid     into a table keyed by an INTEGER PRIMARY KEY alone (no separate (partition, offset) index)
// Run: npx tsx bench/commit-cost.bench.ts [commits=15000]
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpointer } from '../src/storage/sqlite/checkpointer';
import { applyPragmas, DEFAULT_PRAGMAS } from '../src/storage/sqlite/pragmas';
import { migrate } from '../src/storage/sqlite/schema';

type Variant = 'update' | 'noupdate' | 'rowid';

function run(variant: Variant, pageSize: number, batchesPerCommit: number, commits: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'minnow-commit-'));
  const path = join(dir, 'c.db');
  const db = new Database(path);
  applyPragmas(db, { ...DEFAULT_PRAGMAS, pageSize });
  migrate(db, Date.now());
  db.exec(`INSERT INTO topic (id, name, topic_uuid, partitions, created_ms) VALUES (1, 'c', 'AAAAAAAAAAAAAAAAAAAAAA', 1, 0);
           INSERT INTO partition (id, topic_id, partition_index) VALUES (1, 1, 0);
           CREATE TABLE rowid_batch (id INTEGER PRIMARY KEY, last_offset INTEGER NOT NULL, record_count INTEGER NOT NULL,
             max_timestamp INTEGER NOT NULL, producer_id INTEGER NOT NULL, producer_epoch INTEGER NOT NULL,
             base_sequence INTEGER NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL);`);
  const checkpointer = new Checkpointer(path, DEFAULT_PRAGMAS.checkpointIntervalMs || 200, (m) =>
    console.error(`checkpointer: ${m}`),
  );
  const insert =
    db.prepare(`INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp,
       producer_id, producer_epoch, base_sequence, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertRowid = db.prepare(`INSERT INTO rowid_batch (id, last_offset, record_count, max_timestamp,
       producer_id, producer_epoch, base_sequence, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const setOffsets = db.prepare('UPDATE partition SET log_start_offset = ?, high_watermark = ? WHERE id = ?');
  const blob = randomBytes(2150);
  let offset = 0;
  const txn = db.transaction(() => {
    for (let i = 0; i < batchesPerCommit; i++) {
      if (variant === 'rowid')
        insertRowid.run(2 ** 40 + offset, offset + 1, 2, Date.now(), -1, -1, -1, blob.length, blob);
      else insert.run(1, offset, offset + 1, 2, Date.now(), -1, -1, -1, blob.length, blob);
      offset += 2;
    }
    if (variant === 'update') setOffsets.run(0, offset, 1);
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < commits; i++) {
    txn();
    checkpointer.committed();
  }
  const cpu = process.cpuUsage(cpu0);
  const wallUs = ((performance.now() - t0) * 1000) / commits;
  checkpointer.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const us = (n: number) => (n / commits).toFixed(1);
  return `| ${variant} | ${pageSize} | ${batchesPerCommit} | ${us(cpu.user + cpu.system)} | ${us(cpu.user)} | ${us(cpu.system)} | ${wallUs.toFixed(1)} |`;
}

const commits = Number(process.argv[2] ?? 15000);
console.log('| variant | page size | batches/commit | CPU µs/commit | user | sys | wall µs/commit |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const pageSize of [8192, 4096])
  for (const v of ['update', 'noupdate', 'rowid'] as const) console.log(run(v, pageSize, 1, commits));
for (const v of ['update', 'noupdate', 'rowid'] as const) console.log(run(v, 8192, 4, commits));
