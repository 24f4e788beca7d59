// The kit project's jest globalSetup (test/jest.config.js): a fresh directory for the run cache
// (test/helpers/run-cache.ts), named to the test workers by an environment variable. Always a new
// one, even when the variable is set: a jest started by a test (temp-dirs.test.ts) has its own.
// In it, the socket of the run's one CloudFormation validator (validation-server-start.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RUN_CACHE_ENV } from './run-cache';
import { startValidationServer } from './validation-server-start';

export default async function makeRunCache(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-kit-run-'));
  process.env[RUN_CACHE_ENV] = dir;
  await startValidationServer(dir);
}
