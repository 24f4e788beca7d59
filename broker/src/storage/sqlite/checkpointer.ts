// Checkpoints the WAL from a worker thread with its own connection, so copying WAL pages into the
// database file (and, with synchronous=NORMAL, its fsync) never runs inside a produce's commit on
// the event loop. Measured (bench/wal-checkpoint.bench.ts, the seed workload's commits): commit
// max 132 ms with checkpoints inside commits, 26 ms with this thread; 3.9 s vs 0.17 s of stalls.
// PASSIVE checkpoints never block the writer.
//
// PASSIVE alone does not bound the WAL: the writer starts the WAL over only when a checkpoint has
// copied every frame, and under sustained produce new frames always arrive while the thread's
// checkpoint runs (measured: 312 MB of WAL after 20 s at 8 MB/s). So when the WAL holds more than
// `walMaxBytes` and the thread's pass copied every frame it saw (no reader pins old frames), it
// asks the owner to `catchUp`: a PASSIVE checkpoint on the writer's own connection, between two
// commits, copies the few frames committed since (measured 1-17 ms on the event loop, once per
// walMaxBytes written), and the next commit starts the WAL over (journal_size_limit trims the file).
// A RESTART checkpoint from the thread does the same without the owner but holds the writer lock
// while it waits, and SQLite's busy handler sleeps in growing steps: p99 produce latency 65-88 ms
// against 31-46 ms this way (at 8 MB/s, 1 KiB records; 10-35 ms without bounding the WAL).
// A reader holding an old snapshot (`minnow backup`) pins the WAL until it ends.
//
// The thread costs ~10 MB of resident memory (a V8 isolate), so it only runs while there are
// writes: the first commit starts it, and after `idleStopMs` without a commit it checkpoints one
// last time and exits. An idle broker holds no thread and no WAL.
import { Worker } from 'node:worker_threads';
import { DEFAULT_PRAGMAS } from './pragmas';

// Plain JavaScript: a worker does not inherit the TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const done = new Int32Array(workerData.done);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const frameBytes = db.pragma('page_size', { simple: true }) + 24; // a WAL frame: page + header
// After asking for a catch-up the thread sits out one tick: a checkpoint of its own meanwhile would
// hold the checkpoint lock and make the writer's catch-up give up.
let askedForCatchUp = false;
const checkpoint = () => {
  try {
    const pass = db.pragma('wal_checkpoint(PASSIVE)')[0];
    askedForCatchUp = pass.log * frameBytes > workerData.walMaxBytes && pass.checkpointed === pass.log;
    if (askedForCatchUp) parentPort.postMessage({ catchUp: true });
  } catch (err) { parentPort.postMessage(String(err && err.message)); }
};
const timer = setInterval(() => {
  if (askedForCatchUp) askedForCatchUp = false;
  else checkpoint();
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  clearInterval(timer);
  if (m === 'retire') checkpoint();
  try { db.close(); } finally { Atomics.store(done, 0, 1); Atomics.notify(done, 0); parentPort.close(); }
});
`;

interface Thread {
  worker: Worker;
  /** Set to 1 by the thread once its connection is closed. */
  done: Int32Array;
}

export class Checkpointer {
  /** The running thread, if any. */
  private current: Thread | undefined;
  /** Threads told to stop that may still hold their connection. */
  private readonly retiring = new Set<Thread>();
  private commits = 0;
  private commitsAtLastCheck = 0;
  private readonly idleCheck: NodeJS.Timeout;
  private stopped = false;
  /** Threads started so far (tests, diagnostics). */
  started = 0;
  /** Catch-up checkpoints run on the writer's connection so far (tests, diagnostics). */
  catchUps = 0;

  /** A thread failed: no more threads; `fallback` was called. */
  private failed = false;

  /**
   * `fallback` runs once if a thread cannot start or dies with an error: the caller then
   * checkpoints inside its own commits (wal_autocheckpoint), so the WAL never grows unbounded.
   */
  constructor(
    private readonly path: string,
    private readonly intervalMs: number,
    private readonly onError: (message: string) => void,
    idleStopMs = 30_000,
    private readonly fallback: () => void = () => {},
    /** The WAL size (bytes of frames) past which the thread asks for `catchUp`. */
    private readonly walMaxBytes: number = DEFAULT_PRAGMAS.walMaxBytes,
    /** A PASSIVE checkpoint on the writer's connection, so the next commit starts the WAL over. */
    private readonly catchUp: () => void = () => {},
  ) {
    this.idleCheck = setInterval(() => this.retireIfIdle(), idleStopMs);
    this.idleCheck.unref();
  }

  /** Call after each committed write: starts the thread when none is running. */
  committed(): void {
    this.commits++;
    if (!this.current && !this.stopped && !this.failed) {
      try {
        this.start();
      } catch (err) {
        this.fail(`cannot start the checkpointer thread: ${(err as Error).message}`);
      }
    }
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  /**
   * Stops the threads and waits (synchronously, up to 5 s each) until their connections are
   * closed, so the caller's final checkpoint finds no other connection holding the WAL.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.idleCheck);
    if (this.current) this.tell(this.current, 'stop');
    this.current = undefined;
    for (const t of this.retiring) {
      Atomics.wait(t.done, 0, 0, 5000);
      void t.worker.terminate();
    }
    this.retiring.clear();
  }

  private start(): void {
    const done = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The thread only runs PRAGMAs: a tiny JS heap keeps its resident memory small.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1, codeRangeSizeMb: 4, stackSizeMb: 1 },
      workerData: {
        path: this.path,
        intervalMs: this.intervalMs,
        walMaxBytes: this.walMaxBytes,
        betterSqlite3: require.resolve('better-sqlite3'),
        done: done.buffer,
      },
    });
    const thread: Thread = { worker, done };
    worker.on('message', (m) => {
      if (typeof m === 'object' && m?.catchUp) this.runCatchUp();
      else this.onError(String(m)); // a failed checkpoint; the next may succeed
    });
    worker.on('error', (err) => this.fail(`checkpointer thread died: ${err.message}`));
    worker.on('exit', () => {
      this.retiring.delete(thread);
      if (this.current === thread) this.current = undefined; // died: the next commit starts another
    });
    worker.unref();
    this.current = thread;
    this.started++;
  }

  private runCatchUp(): void {
    if (this.stopped || this.failed) return;
    try {
      this.catchUp();
      this.catchUps++;
    } catch (err) {
      this.onError(`catching up on the writer's connection failed: ${(err as Error).message}`); // the next pass asks again
    }
  }

  private fail(message: string): void {
    if (this.failed || this.stopped) return; // after stop() the caller's close() checkpoints
    this.failed = true;
    this.current = undefined;
    this.onError(`${message}; checkpointing inside commits from now on`);
    try {
      this.fallback();
    } catch (err) {
      this.onError(`could not turn on checkpoints inside commits: ${(err as Error).message}`);
    }
  }

  private retireIfIdle(): void {
    const idle = this.commits === this.commitsAtLastCheck;
    this.commitsAtLastCheck = this.commits;
    if (idle && this.current) {
      this.tell(this.current, 'retire');
      this.current = undefined;
    }
  }

  private tell(thread: Thread, message: 'retire' | 'stop'): void {
    this.retiring.add(thread);
    thread.worker.postMessage(message);
  }
}
