// The storage ceiling: how fast better-sqlite3 alone stores the very batch blobs the load tool
// sends, with the broker's pragmas and schema (migrations.ts) and its per-transaction work (one
// INSERT per batch, one partition UPDATE per transaction, its Checkpointer thread when the pragmas
// ask for one), and no network, decoding or CRC.
// Run by harness.ts in its own process:
//   node -r tsx/cjs bench/sqlite-ceiling.ts DIR RECORD_SIZE BATCH_SIZE BATCHES_PER_TXN SECONDS
// and prints one JSON line.
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { recordsPerBatch, randomPayloads } from '../src/perf/payload';
import { encodeRecordBatch } from '../src/protocol/record-batch';
import { Checkpointer } from '../src/storage/sqlite/checkpointer';
import { applyPragmas, DEFAULT_PRAGMAS } from '../src/storage/sqlite/pragmas';
import { migrate } from '../src/storage/sqlite/schema';

export interface CeilingResult {
  recordSize: number;
  batchSizeBytes: number;
  batchesPerTxn: number;
  recordsPerBatch: number;
  batches: number;
  records: number;
  payloadBytes: number;
  seconds: number;
  recordsPerSec: number;
  mbPerSec: number;
  txnP99Ms: number;
  dbBytes: number;
  sqliteVersion: string;
  /** The process's CPU over the run (all threads: the checkpointer too), % of one core. */
  cpuPercent: number;
}

function main(): void {
  const [dir, recordSizeRaw, batchSizeRaw, perTxnRaw, secondsRaw] = process.argv.slice(2);
  const recordSize = Number(recordSizeRaw);
  const batchSizeBytes = Number(batchSizeRaw);
  const perTxn = Number(perTxnRaw);
  const seconds = Number(secondsRaw);
  const path = join(dir!, 'ceiling.db');
  const db = new Database(path);
  applyPragmas(db, DEFAULT_PRAGMAS);
  migrate(db, Date.now());
  // As SqliteStorage does: with a checkpoint interval, a worker thread checkpoints and commits never do.
  const checkpointer =
    DEFAULT_PRAGMAS.checkpointIntervalMs > 0
      ? new Checkpointer(path, DEFAULT_PRAGMAS.checkpointIntervalMs, (m) =>
          process.stderr.write(`checkpointer: ${m}\n`),
        )
      : undefined;
  db.exec(`INSERT INTO topic (id, name, topic_uuid, partitions, created_ms) VALUES (1, 'ceiling', 'AAAAAAAAAAAAAAAAAAAAAA', 1, 0);
           INSERT INTO partition (id, topic_id, partition_index) VALUES (1, 1, 0);`);
  const insert = db.prepare(
    `INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp,
       producer_id, producer_epoch, base_sequence, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const setOffsets = db.prepare('UPDATE partition SET log_start_offset = ?, high_watermark = ? WHERE id = ?');

  // The same blobs the load tool builds: its payload pool, its batch sizing.
  const perBatch = recordsPerBatch(batchSizeBytes, recordSize);
  const values = randomPayloads(recordSize);
  const pool = Array.from({ length: 16 }, (_, b) =>
    encodeRecordBatch({
      records: Array.from({ length: perBatch }, (_, i) => ({
        key: null,
        value: values[(b * perBatch + i) % values.length]!,
      })),
      baseTimestamp: BigInt(Date.now()),
    }),
  );
  let offset = 0;
  let batches = 0;
  const txn = db.transaction(() => {
    for (let k = 0; k < perTxn; k++) {
      const blob = pool[batches % pool.length]!;
      insert.run(1, offset, offset + perBatch - 1, perBatch, Date.now(), -1, -1, -1, blob.length, blob);
      offset += perBatch;
      batches++;
    }
    setOffsets.run(0, offset, 1);
  });
  const lat: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    const s = performance.now();
    txn();
    checkpointer?.committed(); // as the broker's Transactor does after each commit
    lat.push(performance.now() - s);
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  checkpointer?.stop();
  db.close();
  lat.sort((a, b) => a - b);
  const records = batches * perBatch;
  const result: CeilingResult = {
    recordSize,
    batchSizeBytes,
    batchesPerTxn: perTxn,
    recordsPerBatch: perBatch,
    batches,
    records,
    payloadBytes: records * recordSize,
    seconds: elapsed,
    recordsPerSec: records / elapsed,
    mbPerSec: (records * recordSize) / elapsed / 1048576,
    txnP99Ms: lat[Math.floor(lat.length * 0.99)] ?? 0,
    dbBytes: statSync(path).size,
    sqliteVersion,
    cpuPercent: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) main();
