// The instance installs the broker alone with `npm ci --omit=dev`; the repository has one lockfile,
// at the workspaces root. These check the broker's lockfile derived from it: npm's own flags, the
// root's exact versions, only what the broker reaches, and that npm accepts it as complete.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Lockfile, depFlags, workspaceLockfile } from '../lib/constructs/broker-lockfile';

const root = path.join(__dirname, '..');
const rootLock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lockfile;
const brokerPkg = JSON.parse(fs.readFileSync(path.join(root, 'broker', 'package.json'), 'utf8'));
const brokerLock = workspaceLockfile(rootLock, brokerPkg.name);

describe('broker lockfile derived from the root lockfile', () => {
  test("computes npm's dev/optional/devOptional/peer flags (checked against the root lockfile npm wrote)", () => {
    const flags = depFlags(rootLock.packages, '');
    const pick = (e: Record<string, unknown> | undefined) =>
      Object.fromEntries(['dev', 'optional', 'devOptional', 'peer'].filter((k) => e?.[k]).map((k) => [k, true]));
    const mismatches = Object.entries(rootLock.packages)
      .filter(([loc, e]) => loc !== '' && !e.link && !loc.startsWith('broker'))
      .filter(([loc, e]) => JSON.stringify(pick(e)) !== JSON.stringify(pick(flags.get(loc) as Record<string, unknown>)))
      .map(([loc, e]) => ({ loc, npm: pick(e), derived: pick(flags.get(loc) as Record<string, unknown>) }));
    expect(mismatches).toEqual([]);
  });

  test("has the broker's package.json as root and the root lockfile's versions and hashes", () => {
    expect(brokerLock.packages['']).toMatchObject({
      name: brokerPkg.name,
      dependencies: brokerPkg.dependencies,
      devDependencies: brokerPkg.devDependencies,
    });
    for (const [loc, entry] of Object.entries(brokerLock.packages)) {
      if (loc === '') continue;
      const original = rootLock.packages[loc] ?? rootLock.packages[`broker/${loc}`];
      expect({ loc, version: entry.version, integrity: entry['integrity'] }).toEqual({
        loc,
        version: original?.version,
        integrity: original?.['integrity'],
      });
    }
    expect(brokerLock.packages['node_modules/better-sqlite3']?.version).toMatch(/^12\./);
  });

  test('holds only what the broker reaches: no CDK kit packages; production deps are not flagged dev', () => {
    for (const kit of ['aws-cdk-lib', 'aws-cdk', 'cdk-nag', 'constructs', '@aws-sdk/client-ec2']) {
      expect(brokerLock.packages[`node_modules/${kit}`]).toBeUndefined();
    }
    for (const dep of Object.keys(brokerPkg.dependencies)) {
      expect({ dep, dev: brokerLock.packages[`node_modules/${dep}`]?.dev }).toEqual({ dep, dev: undefined });
    }
    expect(brokerLock.packages['node_modules/kafkajs']?.dev).toBe(true);
  });

  test('npm accepts it as complete: an offline lockfile-only install changes nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-broker-lock-'));
    try {
      fs.copyFileSync(path.join(root, 'broker', 'package.json'), path.join(dir, 'package.json'));
      fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(brokerLock, null, 2));
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && v !== undefined) env[k] = v;
      const result = spawnSync(
        'npm',
        ['install', '--package-lock-only', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'],
        {
          cwd: dir,
          // A fresh cache and a closed registry: anything missing from the lockfile fails here.
          env: { ...env, npm_config_cache: path.join(dir, '.cache'), npm_config_registry: 'http://127.0.0.1:9/' },
          encoding: 'utf8',
          timeout: 45_000,
        },
      );
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
      const rewritten = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
      expect(rewritten).toEqual(brokerLock);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
