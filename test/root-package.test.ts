// The repository root's own promises to users: `npm start` runs the broker on 127.0.0.1:9092 with
// ./data/minnow.db; the root is an npm workspaces root (one lockfile, one `npm ci`), npm itself
// links the broker's `minnow` bin into node_modules/.bin, and `npx minnow` runs it without
// installing anything (issue 12: npx used to install the checkout and rerun its postinstall).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.join(__dirname, '..');
const readJson = (file: string): Record<string, any> => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
const pkg = readJson('package.json');
const INSTALL_LIFECYCLE = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish'];

/** Every directory under `dir` (adding, removing or replacing a file changes its directory's mtime). */
function directories(dir: string): string[] {
  const out = [dir];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...directories(path.join(dir, entry.name)));
  }
  return out;
}

describe('root package', () => {
  it('starts the broker on 127.0.0.1:9092 (state in ./data/minnow.db by default)', () => {
    expect(pkg.scripts.start).toBe('node broker/bin/minnow.js serve --listener tcp://127.0.0.1:9092');
  });

  it('is a workspaces root with the broker as its workspace and one lockfile', () => {
    expect(pkg.workspaces).toEqual(['broker']);
    expect(fs.existsSync(path.join(root, 'package-lock.json'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'broker', 'package-lock.json'))).toBe(false);
    const lock = readJson('package-lock.json');
    expect(lock.packages['node_modules/minnow-broker']).toMatchObject({ resolved: 'broker', link: true });
  });

  it('has no bin of its own and no script that installs (npx would install the checkout to run them)', () => {
    expect(pkg.bin).toBeUndefined();
    for (const file of ['package.json', 'broker/package.json']) {
      const scripts = Object.keys(readJson(file).scripts ?? {});
      expect({ file, lifecycle: scripts.filter((s) => INSTALL_LIFECYCLE.includes(s)) }).toEqual({
        file,
        lifecycle: [],
      });
    }
  });

  it("npm links the workspace's `minnow` into node_modules/.bin", () => {
    const link = path.join(root, 'node_modules', '.bin', 'minnow');
    expect(fs.realpathSync(link)).toBe(fs.realpathSync(path.join(root, 'broker', 'bin', 'minnow.js')));
  });

  it('`npx --no-install minnow --help` with a fresh npm cache installs nothing and leaves node_modules as it was', () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-npx-cache-'));
    const watched = [path.join(root, 'node_modules'), path.join(root, 'broker', 'node_modules')].filter((d) =>
      fs.existsSync(d),
    );
    const before = new Map(watched.flatMap(directories).map((d) => [d, fs.statSync(d).mtimeMs]));
    const hiddenLock = path.join(root, 'node_modules', '.package-lock.json');
    const hiddenLockBefore = fs.statSync(hiddenLock).mtimeMs;
    // A user's shell: none of the npm_* variables `npm test` exports; a fresh cache; a registry on a
    // closed local port, so an install attempt fails at once instead of downloading.
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && v !== undefined) env[k] = v;
    const result = spawnSync('npx', ['--no-install', 'minnow', '--help'], {
      cwd: root,
      env: {
        ...env,
        npm_config_cache: cache,
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_update_notifier: 'false',
      },
      encoding: 'utf8',
      timeout: 45_000,
    });
    try {
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
      expect(result.stdout).toMatch(/minnow/);
      // npx installs a package it runs into <cache>/_npx/<hash>; nothing may appear there.
      expect(fs.existsSync(path.join(cache, '_npx'))).toBe(false);
      expect(fs.statSync(hiddenLock).mtimeMs).toBe(hiddenLockBefore);
      const after = new Map(watched.flatMap(directories).map((d) => [d, fs.statSync(d).mtimeMs]));
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter((d) => before.get(d) !== after.get(d));
      expect(changed).toEqual([]);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
