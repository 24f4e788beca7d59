// jest globalSetup (broker/jest.config.js): compiles the broker for the processes the tests start
// (child-build.ts says why) and names the folder in the environment the test workers inherit.
import * as path from 'node:path';
import { BUILDS, buildForChildren, CHILD_BUILD_ENV, removeStaleBuilds } from './child-build';

export default async function setup(): Promise<void> {
  removeStaleBuilds();
  const out = path.join(BUILDS, String(process.pid));
  await buildForChildren(out);
  process.env[CHILD_BUILD_ENV] = out;
}
