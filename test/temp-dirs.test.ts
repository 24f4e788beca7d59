import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './helpers/synth';

// A kit test file that synthesizes leaves nothing in the temp dir once it ends: runs one such file
// (config.test.ts synthesizes several stacks) in a child jest with TMPDIR pointed at an empty dir.
test('a synthesizing test file leaves no cloud assembly behind in the temp dir', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-tmpcheck-'));
  try {
    const run = spawnSync(
      process.execPath,
      [require.resolve('jest/bin/jest'), '--config', 'test/jest.config.js', '--runInBand', 'test/variants.test.ts'],
      { cwd: REPO_ROOT, env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 180_000 },
    );
    expect(run.status).toBe(0);
    // Caches that stay by design: the staged broker copy shared by synths (one per broker version,
    // pruned after an hour) and jest's own transform cache.
    const left = fs.readdirSync(tmp).filter((name) => !/^(minnow-broker-asset-|jest_)/.test(name));
    expect(left).toEqual([]);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
