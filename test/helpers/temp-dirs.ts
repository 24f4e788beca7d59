import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Temp directories for the kit's tests (cloud assemblies, install sandboxes, ops output), removed
 * when the test file ends (test/helpers/remove-temp-dirs.ts, a jest setup file). A synthesized
 * assembly holds a copy of the broker asset (3-7 MB); a kit run used to leave ~40 of them behind.
 */
const created: string[] = [];
/** What must happen before the dirs go (a process running from one, whose pid file is in one). */
const beforeRemoval: (() => void)[] = [];

export function kitTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/**
 * Runs `fn` when the file's temp dirs are removed, just before: jest runs the setup file's afterAll
 * (which removes them) before a test file's own, so an afterAll of a helper would find them gone.
 */
export function beforeKitTempDirsGo(fn: () => void): void {
  if (!beforeRemoval.includes(fn)) beforeRemoval.push(fn);
}

export function removeKitTempDirs(): void {
  for (const fn of beforeRemoval) fn();
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
