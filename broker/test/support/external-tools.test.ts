// external-tools.ts and its reporter: a missing tool skips its tests and is named, with how to
// install it, in one line at the end of the run, collected across jest's worker processes; with
// MINNOW_REQUIRE_TOOLS=1 it fails the test file instead.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  EXTERNAL_TOOLS,
  REQUIRE_TOOLS_ENV,
  SKIP_DIR_ENV,
  SkipRecord,
  hasTool,
  onPath,
  requireTools,
} from './external-tools';

const reporter = require('./skipped-tools-reporter.js') as {
  SKIP_DIR_ENV: string;
  summaryLine: (skips: SkipRecord[], pendingByFile: Map<string, number>) => string | undefined;
  readSkips: (dir: string) => SkipRecord[];
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-tools-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A folder holding one executable `name` (a shell script that prints ok). */
function binDir(label: string, name: string): string {
  const dir = path.join(tmp, label);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), '#!/bin/sh\necho ok\n', { mode: 0o755 });
  return dir;
}

/** Runs `fn` with these environment variables (undefined removes one), then restores them. */
function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  };
  apply(vars);
  try {
    return fn();
  } finally {
    apply(saved);
  }
}

describe('onPath', () => {
  it('finds an executable file in a PATH folder, not a plain file or a folder of that name', () => {
    const found = binDir('found', 'kcat');
    const plain = path.join(tmp, 'plain');
    fs.mkdirSync(path.join(plain, 'kcat'), { recursive: true });
    fs.writeFileSync(path.join(plain, 'shellcheck'), 'not executable', { mode: 0o644 });
    expect(onPath('kcat', ['', plain, found].join(path.delimiter))).toBe(true);
    expect(onPath('kcat', plain)).toBe(false);
    expect(onPath('shellcheck', plain)).toBe(false);
    expect(onPath('kcat', '')).toBe(false);
  });
});

describe('requireTools', () => {
  it('runs the tests when every tool is on PATH, and records nothing', () => {
    const records = path.join(tmp, 'present-records');
    const dir = binDir('present', 'kcat');
    fs.writeFileSync(path.join(dir, 'zip'), '#!/bin/sh\n', { mode: 0o755 });
    const ok = withEnv({ PATH: dir, [SKIP_DIR_ENV]: records, [REQUIRE_TOOLS_ENV]: '1' }, () =>
      requireTools('kcat', 'zip'),
    );
    expect(ok).toBe(true);
    expect(fs.existsSync(records)).toBe(false);
  });

  it('skips and records each missing tool with its install hint and this test file', () => {
    const records = path.join(tmp, 'missing-records');
    const dir = binDir('only-kcat', 'kcat');
    const ok = withEnv({ PATH: dir, [SKIP_DIR_ENV]: records, [REQUIRE_TOOLS_ENV]: undefined }, () =>
      requireTools('kcat', 'shellcheck', 'lz4'),
    );
    expect(ok).toBe(false);
    expect(reporter.readSkips(records)).toEqual([
      { tool: 'shellcheck', install: 'apt-get install -y shellcheck', testPath: __filename },
      { tool: 'lz4', install: 'apt-get install -y lz4', testPath: __filename },
    ]);
  });

  it('with MINNOW_REQUIRE_TOOLS=1 throws, naming the missing tool and how to install it, and records nothing', () => {
    const records = path.join(tmp, 'required-records');
    const run = () =>
      withEnv({ PATH: path.join(tmp, 'empty'), [SKIP_DIR_ENV]: records, [REQUIRE_TOOLS_ENV]: '1' }, () =>
        requireTools('mvn'),
      );
    expect(run).toThrow(
      `external-tools.test.ts needs mvn (apt-get install -y maven), which is not available here; MINNOW_REQUIRE_TOOLS=1 makes that a failure instead of a skip`,
    );
    expect(fs.existsSync(records)).toBe(false);
  });

  it('with MINNOW_REQUIRE_TOOLS=1 still skips (and records) what no install gives, e.g. mount rights', () => {
    const records = path.join(tmp, 'machine-records');
    const tool = EXTERNAL_TOOLS['tmpfs mount'] as { probe: () => boolean };
    const realProbe = tool.probe;
    tool.probe = () => false; // a machine without mount rights
    try {
      const env = { PATH: path.join(tmp, 'no-mount-rights'), [SKIP_DIR_ENV]: records, [REQUIRE_TOOLS_ENV]: '1' };
      expect(withEnv(env, () => requireTools('tmpfs mount'))).toBe(false);
      expect(reporter.readSkips(records).map((r) => r.tool)).toEqual(['tmpfs mount']);
      // ...but a missing program beside it still fails.
      expect(() => withEnv(env, () => requireTools('tmpfs mount', 'kcat'))).toThrow('needs kcat');
    } finally {
      tool.probe = realProbe;
    }
  });

  it('asks the probe, not PATH, for what is not one program (a tmpfs mount: never without root)', () => {
    if (process.getuid?.() !== 0) expect(hasTool('tmpfs mount')).toBe(false);
    // With root, the probe mounts for real: it agrees with mount itself and leaves nothing behind.
    else
      expect(hasTool('tmpfs mount')).toBe(
        spawnSync('sh', [
          '-c',
          'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d"; s=$?; rmdir "$d"; exit $s',
        ]).status === 0,
      );
    expect(fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('minnow-mount-probe-'))).toEqual([]);
  });

  it('knows how to install every tool it names', () => {
    for (const [name, tool] of Object.entries(EXTERNAL_TOOLS))
      expect({ name, install: tool.install }).toEqual({ name, install: expect.stringMatching(/\S/) });
  });
});

describe('the summary line', () => {
  const skip = (tool: string, testPath: string): SkipRecord => ({
    tool,
    install: `apt-get install -y ${tool}`,
    testPath,
  });

  it('counts the skipped tests of each file once and lists each tool once, sorted', () => {
    const line = reporter.summaryLine(
      [
        skip('zip', '/t/a.test.ts'),
        skip('kcat', '/t/a.test.ts'),
        skip('kcat', '/t/b.test.ts'),
        skip('kcat', '/t/a.test.ts'),
      ],
      new Map([
        ['/t/a.test.ts', 3],
        ['/t/b.test.ts', 1],
        ['/t/c.test.ts', 7],
      ]),
    );
    expect(line).toBe(
      'skipped 4 tests in 2 files needing: kcat (apt-get install -y kcat), zip (apt-get install -y zip); .ci/run installs them, and MINNOW_REQUIRE_TOOLS=1 makes a missing one a failure',
    );
  });

  it('is absent when nothing was skipped', () => {
    expect(reporter.summaryLine([], new Map([['/t/a.test.ts', 2]]))).toBeUndefined();
  });

  it('ignores a record cut short by a killed worker', () => {
    const dir = path.join(tmp, 'torn');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'skips.jsonl'), `${JSON.stringify(skip('kcat', '/t/a.test.ts'))}\n{"tool":"zi`);
    expect(reporter.readSkips(dir)).toEqual([skip('kcat', '/t/a.test.ts')]);
  });

  it('uses the same environment variable as external-tools.ts', () => {
    expect(reporter.SKIP_DIR_ENV).toBe(SKIP_DIR_ENV);
  });
});

// The whole path: jest with two worker processes runs two test files on a PATH without kcat or
// shellcheck; the reporter prints the one line, or with MINNOW_REQUIRE_TOOLS=1 the files fail.
describe('a jest run without the tools', () => {
  const project = path.join(tmp, 'project');
  const moduleFile = path.join(__dirname, 'external-tools.ts');
  beforeAll(() => {
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, 'a.test.ts'),
      `import { describeWithTools } from ${JSON.stringify(moduleFile)};
describeWithTools('kcat')('needs kcat', () => { it('one', () => {}); it('two', () => {}); });
it('needs nothing', () => {});
`,
    );
    fs.writeFileSync(
      path.join(project, 'b.test.ts'),
      `import { itWithTools } from ${JSON.stringify(moduleFile)};
itWithTools('shellcheck')('needs shellcheck', () => {});
it('needs nothing either', () => {});
`,
    );
    const config = {
      rootDir: project,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/*.test.ts'],
      transform: { '^.+\\.ts$': [require.resolve('@swc/jest'), { jsc: { target: 'es2022' } }] },
      reporters: ['default', path.join(__dirname, 'skipped-tools-reporter.js')],
      cacheDirectory: path.join(tmp, 'jest-cache'), // no timings: jest uses workers, not one process
    };
    fs.writeFileSync(path.join(project, 'jest.config.json'), JSON.stringify(config));
  });

  const jest = (env: NodeJS.ProcessEnv) =>
    spawnSync(
      process.execPath,
      [require.resolve('jest/bin/jest'), '--config', path.join(project, 'jest.config.json'), '--maxWorkers=2', '--ci'],
      {
        cwd: project,
        encoding: 'utf8',
        timeout: 60_000,
        // A PATH with neither kcat nor shellcheck; jest itself needs none (workers are forked from node).
        env: { HOME: process.env.HOME, PATH: path.join(tmp, 'empty-path'), ...env },
      },
    );

  it('passes, skipping the 3 tests that need kcat or shellcheck, and ends with the one summary line', () => {
    const r = jest({});
    expect({ status: r.status, summary: r.stderr.trim().split('\n').pop() }).toEqual({
      status: 0,
      summary:
        'skipped 3 tests in 2 files needing: kcat (apt-get install -y kcat), shellcheck (apt-get install -y shellcheck); .ci/run installs them, and MINNOW_REQUIRE_TOOLS=1 makes a missing one a failure',
    });
    expect(r.stderr).toMatch(/Tests: +3 skipped, 2 passed, 5 total/);
  }, 60_000);

  it('fails both files with MINNOW_REQUIRE_TOOLS=1, saying what to install', () => {
    const r = jest({ MINNOW_REQUIRE_TOOLS: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('a.test.ts needs kcat (apt-get install -y kcat)');
    expect(r.stderr).toContain('b.test.ts needs shellcheck (apt-get install -y shellcheck)');
    expect(r.stderr).toMatch(/Test Suites: 2 failed, 2 total/);
    expect(r.stderr).not.toContain('skipped 3 tests');
  }, 60_000);
});
