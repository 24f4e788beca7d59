// What SQLite on a worker thread could give the 1 KiB maximum produce (issue 15, DESIGN.md "the
// worker-thread lever"), without building it into the broker: the same blobs as sqlite-ceiling.ts
// (256 KiB batches of 1 KiB records, 2 a transaction, the broker's pragmas, schema and checkpointer),
// and per request the main thread's own share of the broker's work, calibrated from its on-CPU
// profile (perf record, max 1 KiB): join the frame (a copy), CRC-32C of the batch, and `spinUs` of
// other JavaScript (decode, validation scan, answer, stream machinery) so that the main thread's
// non-SQLite time per request is what the broker spends.
//   inline  the broker today: prepare a request, commit it, next
//   worker  a worker thread owns the database; the main thread prepares the next request while the
//           worker commits (the batch buffers are transferred, not copied), with at most
//           `inFlight` requests handed over and not yet acknowledged, as 2 producers with one
//           request in flight each. A commit is acknowledged only once it returned (durability as now).
// Run: npx tsx bench/worker-overlap.bench.ts [seconds=6] [spinUs=auto] [inFlight=2]
// Prints one JSON line per mode: MB/s of record bytes, process CPU (% of one core, all threads).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { recordsPerBatch, randomPayloads } from '../src/perf/payload';
import { crc32c } from '../src/protocol/crc32c';
import { encodeRecordBatch } from '../src/protocol/record-batch';
import { Checkpointer } from '../src/storage/sqlite/checkpointer';
import { applyPragmas, DEFAULT_PRAGMAS } from '../src/storage/sqlite/pragmas';
import { migrate } from '../src/storage/sqlite/schema';

const RECORD = 1024;
const BATCH = 262144;
const PER_TXN = 2;

function openDb(path: string) {
  const db = new Database(path);
  applyPragmas(db, DEFAULT_PRAGMAS);
  migrate(db, Date.now());
  const checkpointer = new Checkpointer(path, DEFAULT_PRAGMAS.checkpointIntervalMs, (m) =>
    process.stderr.write(`checkpointer: ${m}\n`),
  );
  db.exec(`INSERT OR IGNORE INTO topic (id, name, topic_uuid, partitions, created_ms) VALUES (1, 'w', 'AAAAAAAAAAAAAAAAAAAAAA', 1, 0);
           INSERT OR IGNORE INTO partition (id, topic_id, partition_index) VALUES (1, 1, 0);`);
  const insert = db.prepare(
    `INSERT INTO record_batch (partition_id, base_offset, last_offset, record_count, max_timestamp,
       producer_id, producer_epoch, base_sequence, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const setOffsets = db.prepare('UPDATE partition SET log_start_offset = ?, high_watermark = ? WHERE id = ?');
  let offset = 0;
  const perBatch = recordsPerBatch(BATCH, RECORD);
  const txn = db.transaction((blobs: Buffer[]) => {
    for (const blob of blobs) {
      insert.run(1, offset, offset + perBatch - 1, perBatch, Date.now(), -1, -1, -1, blob.length, blob);
      offset += perBatch;
    }
    setOffsets.run(0, offset, 1);
  });
  return {
    commit: (blobs: Buffer[]) => {
      txn(blobs);
      checkpointer.committed();
    },
    close: () => {
      checkpointer.stop();
      db.close();
    },
  };
}

function pool(): Buffer[] {
  const perBatch = recordsPerBatch(BATCH, RECORD);
  const values = randomPayloads(RECORD);
  return Array.from({ length: 16 }, (_, b) =>
    encodeRecordBatch({
      records: Array.from({ length: perBatch }, (_, i) => ({
        key: null,
        value: values[(b * perBatch + i) % values.length]!,
      })),
      baseTimestamp: BigInt(Date.now()),
    }),
  );
}

/** Fixed work rather than a wall-clock wait, so a preempted thread still does all of it. */
let itersPerUs = 0;
let sink = 0;
function busy(iters: number): void {
  let x = sink;
  for (let i = 0; i < iters; i++) x = (x * 1103515245 + 12345) % 2147483647;
  sink = x;
}
function calibrateSpin(): void {
  const c0 = process.cpuUsage();
  busy(50_000_000);
  const c = process.cpuUsage(c0);
  itersPerUs = 50_000_000 / (c.user + c.system);
}
function spin(us: number): void {
  busy(Math.round(us * itersPerUs));
}

/** The main thread's own work for one request of PER_TXN batches: the frame copy, the CRC, the rest. */
function prepare(blobs: Buffer[], i: number, spinUs: number): Buffer[] {
  const out: Buffer[] = [];
  for (let k = 0; k < PER_TXN; k++) {
    const src = blobs[(i * PER_TXN + k) % blobs.length]!;
    const copy = Buffer.allocUnsafeSlow(src.length); // own ArrayBuffer: transferable
    src.copy(copy);
    crc32c(copy.subarray(21));
    out.push(copy);
  }
  spin(spinUs);
  return out;
}

async function inline(path: string, seconds: number, spinUs: number) {
  const db = openDb(path);
  const blobs = pool();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let requests = 0;
  while (performance.now() - t0 < seconds * 1000) {
    db.commit(prepare(blobs, requests, spinUs));
    requests++;
    if (requests % 8 === 0) await new Promise((r) => setImmediate(r)); // let the checkpointer's messages in
  }
  return finish('inline', requests, t0, cpu0, db.close);
}

async function viaWorker(path: string, seconds: number, spinUs: number, inFlight: number) {
  // A worker does not inherit the TypeScript loader: register it, then load this file.
  const source = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`;
  const w = new Worker(source, { eval: true, workerData: { path } });
  await new Promise((r) => w.once('message', r)); // opened
  const blobs = pool();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let sent = 0;
  let acked = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (sent - acked < inFlight && performance.now() - t0 < seconds * 1000) {
        const req = prepare(blobs, sent, spinUs);
        w.postMessage(
          req,
          req.map((b) => b.buffer as ArrayBuffer),
        );
        sent++;
      }
      if (acked === sent) resolve();
    };
    w.on('message', (n: number) => {
      acked += n;
      setImmediate(pump);
    });
    pump();
  });
  const r = finish('worker', acked, t0, cpu0, () => {});
  await w.terminate();
  return r;
}

function finish(mode: string, requests: number, t0: number, cpu0: NodeJS.CpuUsage, close: () => void) {
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  close();
  const recordBytes = requests * PER_TXN * recordsPerBatch(BATCH, RECORD) * RECORD;
  return {
    mode,
    requests,
    mbPerSec: recordBytes / elapsed / 1048576,
    processCpuPercent: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
  };
}

/** Worker: owns the database; commits whatever requests are queued in one transaction (group commit). */
function workerMain(): void {
  const db = openDb(workerData.path as string);
  let queue: Buffer[][] = [];
  let scheduled = false;
  parentPort!.on('message', (blobs: Uint8Array[]) => {
    queue.push(blobs.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)));
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      const batch = queue;
      queue = [];
      scheduled = false;
      db.commit(batch.flat());
      parentPort!.postMessage(batch.length); // after the commit returned: the ack
    });
  });
  parentPort!.postMessage('open');
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 6);
  const inFlight = Number(process.argv[4] ?? 2);
  // Default: the main thread's non-SQLite work per 512 KiB request that the broker's profile shows
  // (about as much time as the commit itself: 47 % vs 53 % of its on-CPU samples), less the copy
  // and CRC done here.
  let spinUs = Number(process.argv[3] ?? NaN);
  const dir = mkdtempSync(join(tmpdir(), 'minnow-overlap-'));
  try {
    calibrateSpin();
    if (!Number.isFinite(spinUs)) {
      // CPU time, not wall time, per request: the machine may be shared.
      const probe = await inline(join(dir, 'probe.db'), 2, 0);
      const commitUs = ((probe.processCpuPercent / 100) * 1e6) / (probe.mbPerSec / ((PER_TXN * BATCH) / 1048576));
      spinUs = Math.round(commitUs * (47 / 53) * 0.7); // ~30 % of the non-SQLite share is the copy and CRC
      process.stderr.write(
        `calibrated: ${commitUs.toFixed(0)} µs of CPU per request inline without spin; spin ${spinUs} µs\n`,
      );
    }
    for (let round = 0; round < 2; round++) {
      process.stdout.write(
        `${JSON.stringify({ spinUs, ...(await inline(join(dir, `i${round}.db`), seconds, spinUs)) })}\n`,
      );
      process.stdout.write(
        `${JSON.stringify({ spinUs, inFlight, ...(await viaWorker(join(dir, `w${round}.db`), seconds, spinUs, inFlight)) })}\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) void main();
else workerMain();
