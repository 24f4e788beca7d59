// The best of three timed rounds of a microbenchmark, after a warm-up: operations per second.
// `fn` gets a running counter, so a benchmark can vary its input per call.

/** Runs `fn` for runMs / 5 (warm-up), then three rounds of runMs; returns the best round's ops/s. */
export function bestOpsPerSecond(fn: (i: number) => unknown, runMs: number): number {
  const deadline = (ms: number) => process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let i = 0;
  for (let end = deadline(runMs / 5); process.hrtime.bigint() < end;) fn(i++);
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let n = 0;
    const start = process.hrtime.bigint();
    for (let end = deadline(runMs); process.hrtime.bigint() < end; n++) fn(i++);
    best = Math.max(best, n / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return best;
}

/** One markdown row: what, ops/s, ns per op. */
export function opsRow(what: string, opsPerSecond: number): string {
  return `| ${what} | ${Math.round(opsPerSecond).toLocaleString('en')} | ${(1e9 / opsPerSecond).toFixed(0)} ns |`;
}
