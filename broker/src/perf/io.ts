// Where the load tool prints and what clocks it reads: the process's in `minnow perf`, a capture
// and a fake clock in tests.

export interface PerfIo {
  out(line: string): void;
  err(line: string): void;
  /** Redraws the progress bar (TTY only). */
  bar?(text: string): void;
  isTTY: boolean;
  /** Monotonic ms. */
  now(): number;
  /** Wall clock ms (record timestamps, report dates). */
  wallNow(): number;
}

export const processIo = (): PerfIo => ({
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  bar: (t) => process.stdout.write(`\r\x1b[K${t}`),
  isTTY: process.stdout.isTTY === true,
  now: () => performance.now(),
  wallNow: () => Date.now(),
});

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
