// The broker keeps V8's young generation at the size it starts with (semi-spaces of 1 MiB on 64-bit
// Node 20), instead of letting it grow to 16 MiB, and starts a scavenge itself every few MiB of
// fetched batches (issue 33).
//
// Why: a fetch's batches come out of SQLite as one new Buffer each (better-sqlite3 copies every blob),
// so a consumer allocates ~1 MiB outside the JS heap per 1 MiB fetch but only some KiB inside it.
// Those Buffers die young, yet only a scavenge frees them; with 16 MiB semi-spaces a scavenge came
// every ~50 MB consumed, and V8 starts a full mark-compact whenever the memory held by ArrayBuffers
// has grown 64 MiB past the last one ("external memory pressure"). Measured serving `minnow perf
// consume` (500 MB of 1 KiB records, 1 MiB fetches): 17 mark-compacts per read, and V8's marking
// threads plus GC on the loop were a third of the broker's CPU; with 1 MiB semi-spaces, scavenges
// every ~20 MB free the Buffers first: no mark-compact, broker CPU per MB 2.5 -> 1.3-1.6 ms.
//
// --semi-space-growth-factor is read each time V8 would grow the young generation, so setting it at
// run time works (--max-semi-space-size is read once, when the isolate is made); it pins the size the
// young generation has at that moment, so call this before the server's modules load (they grow it
// to 8 MiB). Every new isolate sets the factor back to 2 (measured: a Worker started after the
// setting lets the young generation grow 1 -> 32 MiB; young-generation.test.ts), and the broker makes
// one per worker thread (the SQLite checkpointer, started at the first write and again
// after each idle spell): so the factor is set again once each worker runs. Measured on Node 20
// (V8 11.3). Later V8 versions that give the factor a minimum of 2 (DEFINE_MIN_VALUE_IMPLICATION in
// flag-definitions.h) ignore it; there `node --max-semi-space-size=1` on the command line does the
// same. Node 20+ sizes the young generation from the memory it may use (its docs of
// --max-semi-space-size: 1 MiB semi-spaces under a 512 MiB limit), so a small machine may be there
// already: this makes larger ones behave alike.
//
// The scavenges: V8 counts the ArrayBuffer memory allocated since the last mark-compact against the
// old generation's limit (--trace-incremental-marking: "Start (allocation limit): 11MB / 20MB / 9MB"
// with a heap 9 MB under it), yet starts a scavenge for it only every ~32 MiB of it (measured with
// 1 MiB semi-spaces: 15 scavenges per 500 MB read). A broker that has just taken a produce burst
// has ~9 MB between its old generation and the limit (V8 sizes that
// gap from how fast its GCs ran against the burst's allocations), so its consumers then started a
// mark-compact every ~9 MB read: broker CPU per MB 2.1-2.5 ms against 1.1-1.3 on the same topic
// after a restart (`minnow perf consume`, 500,000 x 1 KiB written by `minnow perf produce` on the
// same broker, the shape bench:peers measures). A scavenge of the 1 MiB young generation takes
// ~0.2 ms; one per 4 MiB fetched frees the Buffers before they reach that gap.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Fetched bytes between two scavenges the broker starts: well under the ~9 MB V8 may leave. */
export const SCAVENGE_EVERY_FETCHED_BYTES = 4 * 1024 * 1024;

type Scavenge = (options: { type: 'minor' }) => void;
let scavenge: Scavenge | undefined;
let fetchedSinceScavenge = 0;

const pin = () => setFlagsFromString('--semi-space-growth-factor=1');

export function keepYoungGenerationSmall(): void {
  pin();
  process.on('worker', (worker) => worker.once('online', pin));
  // V8's gc extension, as `node --expose-gc` gives it, reached from a context made after the flag.
  setFlagsFromString('--expose-gc');
  scavenge = runInNewContext('gc') as Scavenge;
}

/**
 * A fetch answered with `bytes` of record batches (Buffers outside the heap when they came from
 * SQLite): starts a scavenge once SCAVENGE_EVERY_FETCHED_BYTES have gone by. No-op unless
 * keepYoungGenerationSmall() ran (`minnow serve`; not in-process brokers and tools).
 */
export function fetchedOutsideHeap(bytes: number): void {
  if (!scavenge) return;
  fetchedSinceScavenge += bytes;
  if (fetchedSinceScavenge < SCAVENGE_EVERY_FETCHED_BYTES) return;
  fetchedSinceScavenge = 0;
  scavenge({ type: 'minor' });
}
