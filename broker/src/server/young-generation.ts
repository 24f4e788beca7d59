// The broker keeps V8's young generation at the size it starts with (semi-spaces of 1 MiB on 64-bit
// Node 20), instead of letting it grow to 16 MiB (issue 33).
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
// to 8 MiB). Measured on Node 20 (V8 11.3). Later V8 versions that give the factor a minimum of 2
// (DEFINE_MIN_VALUE_IMPLICATION in flag-definitions.h) ignore it; there `node --max-semi-space-size=1`
// on the command line does the same. Node 20+ sizes the young generation from the memory it may use
// (its docs of --max-semi-space-size: 1 MiB semi-spaces under a 512 MiB limit), so a small machine
// may be there already: this makes larger ones behave alike.
import { setFlagsFromString } from 'node:v8';

export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
