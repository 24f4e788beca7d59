// Checkpoints the WAL from a worker thread with its own connection, so copying WAL pages into the
// database file (and, with synchronous=NORMAL, its fsync) never runs inside a produce's commit on
// the event loop. Measured (bench/wal-checkpoint.bench.ts, the seed workload's commits): commit
// max 132 ms with checkpoints inside commits, 26 ms with this thread; 3.9 s vs 0.17 s of stalls.
// PASSIVE checkpoints never block the writer; the writer then restarts the WAL from its start.
import { Worker } from 'node:worker_threads';

// Plain JavaScript: a worker does not inherit the TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const done = new Int32Array(workerData.done);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage(String(err && err.message)); }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.close(); } finally { Atomics.store(done, 0, 1); Atomics.notify(done, 0); }
});
`;

export class Checkpointer {
  private readonly worker: Worker;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private stopped = false;

  constructor(path: string, intervalMs: number, onError: (message: string) => void) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The thread only runs PRAGMAs: a tiny JS heap keeps its resident memory small.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1, codeRangeSizeMb: 4, stackSizeMb: 1 },
      workerData: { path, intervalMs, betterSqlite3: require.resolve('better-sqlite3'), done: this.done.buffer },
    });
    this.worker.on('message', (m) => onError(String(m)));
    this.worker.on('error', (err) => onError(err.message));
    this.worker.unref();
  }

  /**
   * Stops the thread and waits (synchronously, up to 5 s) until its connection is closed, so the
   * caller's final checkpoint finds no other connection holding the WAL.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.postMessage('stop');
    Atomics.wait(this.done, 0, 0, 5000);
    void this.worker.terminate();
  }
}
