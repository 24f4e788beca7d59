// jest globalTeardown (broker/jest.config.js): removes this run's compiled broker (child-build.ts).
import * as fs from 'node:fs';
import { CHILD_BUILD_ENV } from './child-build';

export default function teardown(): void {
  const out = process.env[CHILD_BUILD_ENV];
  if (out) fs.rmSync(out, { recursive: true, force: true });
}
