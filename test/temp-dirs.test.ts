import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './helpers/synth';

// A kit test file that synthesizes leaves nothing in the temp dir once it ends: runs one such file
// in a child jest with TMPDIR pointed at an empty dir. instance-role.test.ts synthesizes both stacks
// (the single instance and the cluster) through the run cache: cloud assemblies, the run's cache
// directory and the staged broker copy, in two synths.
test('a synthesizing test file leaves no cloud assembly behind in the temp dir', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-tmpcheck-'));
  try {
    const run = spawnSync(
      process.execPath,
      [
        require.resolve('jest/bin/jest'),
        '--config',
        'test/jest.config.js',
        '--runInBand',
        'test/instance-role.test.ts',
      ],
      {
        cwd: REPO_ROOT,
        // Without aws-cdk-lib's template validation (~8 s of the child's ~12 s of CPU): it runs in
        // memory and writes only its report into the cloud assembly, which is removed with it; the
        // same templates are validated when instance-role.test.ts runs in this run itself.
        env: { ...process.env, TMPDIR: tmp, CDK_VALIDATION: 'false' },
        encoding: 'utf8',
        timeout: 180_000,
      },
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
