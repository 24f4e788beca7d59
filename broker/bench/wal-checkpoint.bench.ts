// Evidence for the seed-workload latency: where the event loop stalls when small produce
// transactions are committed at the seed rate. Paces commits of one batch blob each (the
// broker's schema, pragmas and per-commit UPDATE) and reports commit-time percentiles, the time
// spent in commits over 5 ms and the process CPU, for:
//   inline   wal_autocheckpoint=walAutocheckpointPages: checkpoints run inside a commit, on the
//            event loop (the broker before commit 67f10ac)
//   worker   the broker's Checkpointer (src/storage/sqlite/checkpointer.ts): wal_autocheckpoint=0
//            and a worker thread with its own connection running wal_checkpoint(PASSIVE) every
//            checkpointIntervalMs (the writer never waits for it)
// Run: npx tsx bench/wal-checkpoint.bench.ts [commitsPerSec=470] [blobBytes=16384] [seconds=10]
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpointer } from '../src/storage/sqlite/checkpointer';
import { applyPragmas, DEFAULT_PRAGMAS } from '../src/storage/sqlite/pragmas';
import { migrate } from '../src/storage/sqlite/schema';

/** The worker's interval: the broker's, or 200 ms if the broker checkpoints inline by default. */
const WORKER_INTERVAL_MS = DEFAULT_PRAGMAS.checkpointIntervalMs > 0 ? DEFAULT_PRAGMAS.checkpointIntervalMs : 200;

async function run(mode: 'inline' | 'worker', perSec: number, blobBytes: number, seconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'minnow-ckpt-'));
  const path = join(dir, 'c.db');
  const db = new Database(path);
  applyPragmas(db, { ...DEFAULT_PRAGMAS, checkpointIntervalMs: mode === 'inline' ? 0 : WORKER_INTERVAL_MS });
  migrate(db, Date.now());
  db.exec(`INSERT INTO topic (id, name, topic_uuid, partitions, created_ms) VALUES (1, 'c', 'AAAAAAAAAAAAAAAAAAAAAA', 1, 0);
           INSERT INTO partition (id, topic_id, partition_index) VALUES (1, 1, 0);`);
  const checkpointer =
    mode === 'worker'
      ? new Checkpointer(path, WORKER_INTERVAL_MS, (m) => console.error(`checkpointer: ${m}`))
      : undefined;
  const insert = db.prepare(
    `INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp,
       producer_id, producer_epoch, base_sequence, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const setOffsets = db.prepare('UPDATE partition SET log_start_offset = ?, high_watermark = ? WHERE id = ?');
  const blob = randomBytes(blobBytes);
  let offset = 0;
  const txn = db.transaction(() => {
    insert.run(1, offset, offset + 15, 16, Date.now(), -1, -1, -1, blob.length, blob);
    offset += 16;
    setOffsets.run(0, offset, 1);
  });
  const lat: number[] = [];
  const total = perSec * seconds;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * perSec) / 1000));
      while (lat.length < due) {
        const s = performance.now();
        txn();
        checkpointer?.committed();
        lat.push(performance.now() - s);
      }
      if (lat.length < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const wallS = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  checkpointer?.stop();
  const walFrames = (db.pragma('wal_checkpoint(TRUNCATE)') as { log: number }[])[0]?.log ?? 0;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const sorted = [...lat].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(2);
  const slow = lat.filter((x) => x > 5);
  return {
    mode,
    commits: lat.length,
    p50Ms: q(0.5),
    p99Ms: q(0.99),
    maxMs: sorted[sorted.length - 1]!.toFixed(1),
    stalledMsOver5: slow.reduce((a, b) => a + b, 0).toFixed(0),
    stalls: slow.length,
    usPerCommit: ((lat.reduce((a, b) => a + b, 0) / lat.length) * 1000).toFixed(0),
    processCpuPercent: (((cpu.user + cpu.system) / 1e6 / wallS) * 100).toFixed(1),
    walFramesLeft: walFrames,
  };
}

async function main(): Promise<void> {
  const perSec = Number(process.argv[2] ?? 470);
  const blobBytes = Number(process.argv[3] ?? 16384);
  const seconds = Number(process.argv[4] ?? 10);
  console.log(
    `${perSec} commits/s of one ${blobBytes}-byte blob for ${seconds} s (page_size ${DEFAULT_PRAGMAS.pageSize}, synchronous ${DEFAULT_PRAGMAS.synchronous})`,
  );
  for (const mode of ['inline', 'worker'] as const)
    console.log(JSON.stringify(await run(mode, perSec, blobBytes, seconds)));
}

void main();
