// For test files whose kafkajs clients run in tests that run at once (it.concurrent): kafkajs
// requires each request's version module on first use (kafkajs/src/protocol/requests/*/index.js),
// and jest refuses a first require() while no test function or hook runs (lazy-broker-modules.ts
// says when that is). The refusal is thrown inside kafkajs's consumer loop, which then reads
// nothing: seen as a read_committed group reading 0 of 12 records in 30 s.
import * as fs from 'node:fs';
import * as path from 'node:path';

interface RequestIndex {
  versions: string[];
  protocol(o: { version: string }): (args: object) => unknown;
}

/** Loads now every request and response module of every API version kafkajs knows. */
export function loadLazyKafkajsModules(): void {
  // The real path, as kafkajs's own modules are registered under (node_modules may be a symlink).
  const root = fs.realpathSync(path.dirname(require.resolve('kafkajs/package.json')));
  const dir = path.join(root, 'src', 'protocol', 'requests');
  for (const api of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!api.isDirectory()) continue;
    const index = require(path.join(dir, api.name)) as RequestIndex;
    for (const version of index.versions) {
      try {
        index.protocol({ version })({}); // requires the modules, then fails to build a request of no arguments
      } catch {
        // the modules are loaded all the same
      }
    }
  }
}
