import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stagedFiles } from '../../lib/constructs/broker-asset';

/**
 * What one jest run computes once and every kit test file reuses: synthesized templates (most
 * files read the same few stack configurations) and the staged, zipped broker asset of the install
 * sandboxes. Loading aws-cdk-lib and synthesizing a stack costs ~3-7 s of CPU per file, reading a
 * template back ~20 ms.
 *
 * The directory is made for the run by test/helpers/run-cache-setup.ts (the kit project's jest
 * globalSetup) and removed by its teardown, so nothing outlives the run. Each entry's key also
 * holds a hash of everything a synth reads (lib/, bin/, cdk.json, cdk.context.json, the lockfile,
 * these helpers and the broker files the asset ships): an entry made before an edit is never read
 * after it, even in one long `jest --watch` session. Without the directory (a test file run by
 * another config), nothing is cached and every call computes.
 */
export const RUN_CACHE_ENV = 'MINNOW_KIT_RUN_CACHE';

const REPO_ROOT = path.join(__dirname, '..', '..');

/** Files and directories whose content a synth or the staged asset depends on (besides broker/). */
const SYNTH_INPUTS = [
  'lib',
  'bin',
  'cdk.json',
  'cdk.context.json',
  'package-lock.json',
  'broker/package.json',
  'test/helpers/synth.ts',
  'test/helpers/synth-cluster.ts',
  'test/helpers/run-cache.ts',
];

let fingerprint: string | undefined;

/** A hash of every file SYNTH_INPUTS names and of the broker files the asset ships (once per test file). */
export function synthInputsFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = crypto.createHash('sha256');
  const add = (file: string): void => {
    hash.update(`\0${path.relative(REPO_ROOT, file)}\0`).update(fs.readFileSync(file));
  };
  const walk = (entry: string): void => {
    if (!fs.existsSync(entry)) return hash.update(`\0${path.relative(REPO_ROOT, entry)} absent\0`) && undefined;
    if (!fs.statSync(entry).isDirectory()) return add(entry);
    for (const name of fs.readdirSync(entry).sort()) walk(path.join(entry, name));
  };
  for (const input of SYNTH_INPUTS) walk(path.join(REPO_ROOT, input));
  const brokerDir = path.join(REPO_ROOT, 'broker');
  for (const file of stagedFiles(brokerDir)) add(path.join(brokerDir, file));
  fingerprint = hash.digest('hex');
  return fingerprint;
}

/** The run's cache directory for `key` (a hash of it and the inputs), or undefined without a run cache. */
function entryDir(key: string): string | undefined {
  const root = process.env[RUN_CACHE_ENV];
  if (!root || !fs.existsSync(root)) return undefined;
  const id = crypto.createHash('sha256').update(synthInputsFingerprint()).update(key).digest('hex').slice(0, 32);
  return path.join(root, id);
}

type Outcome<T> = { value: T } | { error: string };

/**
 * `compute()`'s outcome for `key` in this run: its JSON value, or the message of what it threw
 * (thrown again as an Error with that message). Two workers missing at once both compute; the
 * first rename wins and both results are the same.
 */
export function runCached<T>(key: string, compute: () => T): T {
  const dir = entryDir(key);
  const file = dir && `${dir}.json`;
  let outcome: Outcome<T>;
  if (file && fs.existsSync(file)) {
    outcome = JSON.parse(fs.readFileSync(file, 'utf8')) as Outcome<T>;
  } else {
    try {
      outcome = { value: compute() };
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      outcome = { error: err.message };
    }
    if (file) {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(outcome));
      fs.renameSync(tmp, file);
    }
  }
  if ('error' in outcome) throw new Error(outcome.error);
  return outcome.value;
}

/**
 * A directory of files `build(dir)` writes for `key`, made once per run, and what `build`
 * returned. Without a run cache the directory is `fallbackDir()` and `build` runs every time.
 */
export function runCachedDir<T>(
  key: string,
  fallbackDir: () => string,
  build: (dir: string) => T,
): { dir: string; value: T } {
  const dir = entryDir(key);
  if (!dir) {
    const own = fallbackDir();
    return { dir: own, value: build(own) };
  }
  const meta = path.join(dir, '.value.json');
  if (!fs.existsSync(meta)) {
    const tmp = fs.mkdtempSync(`${dir}.tmp-`);
    fs.writeFileSync(path.join(tmp, '.value.json'), JSON.stringify(build(tmp)));
    try {
      fs.renameSync(tmp, dir);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // another worker got there first, with the same content
    }
  }
  return { dir, value: JSON.parse(fs.readFileSync(meta, 'utf8')) as T };
}
