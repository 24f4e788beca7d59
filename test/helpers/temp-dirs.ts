import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Temp directories for the kit's tests (cloud assemblies, install sandboxes, ops output), removed
 * when the test file ends (test/helpers/remove-temp-dirs.ts, a jest setup file). A synthesized
 * assembly holds a copy of the broker asset (3-7 MB); a kit run used to leave ~40 of them behind.
 */
const created: string[] = [];

export function kitTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

export function removeKitTempDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
