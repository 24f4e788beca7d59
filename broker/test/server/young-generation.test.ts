// `minnow serve` keeps V8's young generation at the size it has when the setting is made, also after
// a worker thread starts, and starts a scavenge every few MiB fetched (src/server/young-generation.ts).
// Checked in a child process (this one's young generation has long grown): the same garbage grows an
// unpinned young generation and leaves a pinned one as it was. If a Node upgrade makes V8 ignore the
// setting, the pinned case fails here rather than consumers silently paying for full mark-compacts
// again (BENCHMARKS.md, issue 33's consume section).
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const BROKER_DIR = path.resolve(__dirname, '..', '..');
const MODULE = path.join(BROKER_DIR, 'src', 'server', 'young-generation.ts');

/** Runs `body` in a child with `yg` (the module) and `size()` (its young generation, bytes); returns what it printed. */
function inChild<T>(body: string): T {
  const script = `
    require('tsx/cjs');
    const v8 = require('node:v8');
    const yg = require(${JSON.stringify(MODULE)});
    const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const garbage = () => { let kept = []; for (let i = 0; i < 3e6; i++) { kept.push({ i }); if (kept.length > 20000) kept = []; } };
    (async () => { ${body} })().catch((e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: BROKER_DIR, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`the child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** The child's young generation (bytes) before and after ~50 MB of short-lived objects. */
const youngGeneration = (pin: boolean, workerFirst = false) =>
  inChild<{ before: number; after: number }>(`
    if (${pin}) yg.keepYoungGenerationSmall();
    if (${workerFirst}) {
      // As the SQLite checkpointer does: a thread with its own isolate, started after the setting.
      const { Worker } = require('node:worker_threads');
      const w = new Worker('setInterval(() => {}, 1000)', { eval: true });
      await new Promise((resolve) => w.once('online', resolve));
      await new Promise((resolve) => setImmediate(resolve));
      w.unref();
    }
    const before = size();
    garbage();
    process.stdout.write(JSON.stringify({ before, after: size() }));`);

describe('young generation', () => {
  it('grows under short-lived garbage when not pinned (what the pinned case is compared with)', () => {
    const { before, after } = youngGeneration(false);
    expect(after).toBeGreaterThan(before);
  });

  it('stays at its size once pinned', () => {
    const { before, after } = youngGeneration(true);
    expect(after).toBe(before);
  });

  it('stays at its size once pinned, also after a worker thread started (a new isolate resets the setting)', () => {
    const { before, after } = youngGeneration(true, true);
    expect(after).toBe(before);
  });

  it('starts a scavenge once SCAVENGE_EVERY_FETCHED_BYTES have been fetched, none before, none unless pinned', () => {
    const counts = inChild<{ unpinned: number; below: number; at: number }>(`
      const { PerformanceObserver, constants } = require('node:perf_hooks');
      let minor = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
      }).observe({ entryTypes: ['gc'] });
      const settle = () => new Promise((resolve) => setTimeout(resolve, 50)); // gc entries arrive asynchronously
      yg.fetchedOutsideHeap(2 * yg.SCAVENGE_EVERY_FETCHED_BYTES);
      await settle();
      const unpinned = minor;
      yg.keepYoungGenerationSmall();
      await settle();
      minor = 0;
      yg.fetchedOutsideHeap(yg.SCAVENGE_EVERY_FETCHED_BYTES - 1);
      await settle();
      const below = minor;
      yg.fetchedOutsideHeap(1);
      await settle();
      process.stdout.write(JSON.stringify({ unpinned, below, at: minor }));`);
    expect(counts).toEqual({ unpinned: 0, below: 0, at: 1 });
  });
});
