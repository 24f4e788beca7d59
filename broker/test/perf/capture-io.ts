// A PerfIo that keeps what `minnow perf` prints, for the perf tests.
import type { PerfIo } from '../../src/perf/producer';

export function captureIo(): PerfIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    isTTY: false,
    now: () => performance.now(),
    wallNow: () => Date.now(),
  };
}
