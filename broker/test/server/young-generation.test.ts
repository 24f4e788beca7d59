// `minnow serve` keeps V8's young generation at the size it has when the setting is made
// (src/server/young-generation.ts). Checked in a child process (this one's young generation has long
// grown): the same garbage grows an unpinned young generation and leaves a pinned one as it was. If a
// Node upgrade makes V8 ignore the setting, the pinned case fails here rather than consumers silently
// paying for full mark-compacts again (BENCHMARKS.md, issue 33's consume section).
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const BROKER_DIR = path.resolve(__dirname, '..', '..');
const MODULE = path.join(BROKER_DIR, 'src', 'server', 'young-generation.ts');

/** The child's young generation (bytes) before and after ~50 MB of short-lived objects. */
function youngGeneration(pin: boolean): { before: number; after: number } {
  const script = `
    require('tsx/cjs');
    const v8 = require('node:v8');
    const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    if (${pin}) require(${JSON.stringify(MODULE)}).keepYoungGenerationSmall();
    const before = size();
    let kept = [];
    for (let i = 0; i < 3e6; i++) { kept.push({ i }); if (kept.length > 20000) kept = []; }
    process.stdout.write(JSON.stringify({ before, after: size() }));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: BROKER_DIR, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`the child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { before: number; after: number };
}

describe('young generation', () => {
  it('grows under short-lived garbage when not pinned (what the pinned case is compared with)', () => {
    const { before, after } = youngGeneration(false);
    expect(after).toBeGreaterThan(before);
  });

  it('stays at its size once pinned', () => {
    const { before, after } = youngGeneration(true);
    expect(after).toBe(before);
  });
});
