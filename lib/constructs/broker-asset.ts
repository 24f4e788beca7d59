import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Annotations } from 'aws-cdk-lib';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { type Lockfile, workspaceLockfile } from './broker-lockfile';

/**
 * What of broker/ goes to the instance: only what runs. The compiled JavaScript (dist/, built by
 * cdk.json's "build" step), the launcher (bin/), the boot scripts and unit (deploy/) and the
 * package file; the lockfile is added beside it. Nothing else (src/, test/, README, scripts...):
 * the asset hash is the release id, and a new one restarts the production broker, so a comment
 * in src/ or a new test must not change it. (dist/ is rebuilt from src/, so a change of code does.)
 */
export const BROKER_ASSET_INCLUDE = ['bin', 'deploy', 'dist', 'package.json'] as const;

/** Never shipped even inside the included directories (editor and build leftovers). */
const NEVER_SHIPPED = /(^|\/)(node_modules|\.DS_Store)(\/|$)|\.(db|db-wal|db-shm|cpuprofile|tsbuildinfo)$/;

/** Staged copies live in the OS temp dir under this prefix + a content hash. */
const STAGING_PREFIX = 'minnow-broker-asset-';

export interface BrokerAssetProps {
  /**
   * The broker package directory (package.json, bin/, dist/, deploy/). When it has no
   * package-lock.json of its own, it is an npm workspace and its lockfile is derived from the
   * workspaces root's (its parent directory's) package-lock.json.
   * @default - broker/ at the repository root
   */
  readonly brokerDir?: string;
}

/** The files of `dir` that go into the asset, relative, sorted (so the staged copy is deterministic). */
export function stagedFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (rel === '' && !(BROKER_ASSET_INCLUDE as readonly string[]).includes(entry.name)) continue;
      if (NEVER_SHIPPED.test(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/**
 * A copy of what runs of `brokerDir` (BROKER_ASSET_INCLUDE) with a package-lock.json: its own, or,
 * for the workspace broker/, one derived from the root's one lockfile, so the instance's `npm ci
 * --omit=dev` installs exactly the versions the repository pinned. The copy lives in the OS temp dir under a hash of its content: synthesizing twice reuses
 * it, and parallel synths (jest workers) each finish a private copy and rename it into place.
 */
function stageBroker(brokerDir: string): string {
  const lock = brokerLockfile(brokerDir);
  const files = stagedFiles(brokerDir);
  const hash = crypto.createHash('sha256').update(lock);
  for (const file of files) hash.update(`\0${file}\0`).update(fs.readFileSync(path.join(brokerDir, file)));
  const staged = path.join(os.tmpdir(), `${STAGING_PREFIX}${hash.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(staged)) {
    const now = new Date();
    fs.utimesSync(staged, now, now); // in use: not stale for removeStaleStagings
    return staged;
  }
  const tmp = fs.mkdtempSync(`${staged}.tmp-`);
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
    fs.copyFileSync(path.join(brokerDir, file), path.join(tmp, file));
    fs.chmodSync(path.join(tmp, file), fs.statSync(path.join(brokerDir, file)).mode);
  }
  if (lock !== '') fs.writeFileSync(path.join(tmp, 'package-lock.json'), lock);
  try {
    fs.renameSync(tmp, staged);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true }); // another synth got there first, with the same content
  }
  removeStaleStagings(staged);
  return staged;
}

/** broker/'s own package-lock.json, else one derived from its workspaces root's, else '' (none). */
function brokerLockfile(brokerDir: string): string {
  const own = path.join(brokerDir, 'package-lock.json');
  if (fs.existsSync(own)) return fs.readFileSync(own, 'utf8');
  const rootLockPath = path.join(brokerDir, '..', 'package-lock.json');
  if (!fs.existsSync(rootLockPath)) return '';
  const pkg = JSON.parse(fs.readFileSync(path.join(brokerDir, 'package.json'), 'utf8')) as { name: string };
  const rootLock = JSON.parse(fs.readFileSync(rootLockPath, 'utf8')) as Lockfile;
  return `${JSON.stringify(workspaceLockfile(rootLock, pkg.name), null, 2)}\n`;
}

/** Staged copies of other broker versions older than this are removed (a running synth's is younger). */
export const STALE_STAGING_MS = 60 * 60 * 1000;

/**
 * Every broker change stages a new copy (3-4 MB); without this the temp dir collects one per edit.
 * Only copies untouched for an hour go: a parallel synth of another version is never pulled away.
 */
function removeStaleStagings(keep: string): void {
  const dir = path.dirname(keep);
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(STAGING_PREFIX) || path.join(dir, name) === keep) continue;
    const full = path.join(dir, name);
    try {
      if (now - fs.statSync(full).mtimeMs > STALE_STAGING_MS) fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // removed by another synth meanwhile
    }
  }
}

/**
 * The broker as a zipped S3 asset: its JavaScript (dist/, built by cdk.json's "build" step), its
 * package.json and a lockfile (the instance runs `npm ci --omit=dev`), and deploy/ (the systemd unit).
 * Its hash is the release id on the instance, so a changed broker means a changed user data.
 */
export class BrokerAsset extends Construct {
  readonly asset: s3assets.Asset;

  constructor(scope: Construct, id: string, props: BrokerAssetProps = {}) {
    super(scope, id);
    const brokerDir = props.brokerDir ?? path.join(__dirname, '..', '..', 'broker');
    this.asset = new s3assets.Asset(this, 'Asset', {
      path: stageBroker(brokerDir),
      displayName: 'minnow broker',
    });
    // Synth must work on a fresh clone (tests, CI), so a missing build is a warning, not an error:
    // the instance can only start what was built.
    if (!fs.existsSync(path.join(brokerDir, 'dist', 'cli', 'main.js'))) {
      Annotations.of(this).addWarningV2(
        'minnow:broker-not-built',
        `${path.join(brokerDir, 'dist')} has no cli/main.js, so the instance would get a broker it cannot start. ` +
          'Run `npm run build:broker` (cdk.json runs it before `cdk deploy`).',
      );
    }
  }
}
