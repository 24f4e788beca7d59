// The kit project's jest globalTeardown (test/jest.config.js): the run cache and the run's
// CloudFormation validator go with the run.
import * as fs from 'node:fs';
import { RUN_CACHE_ENV } from './run-cache';
import { stopValidationServer } from './validation-server-start';

export default async function removeRunCache(): Promise<void> {
  await stopValidationServer();
  const dir = process.env[RUN_CACHE_ENV];
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  delete process.env[RUN_CACHE_ENV];
}
