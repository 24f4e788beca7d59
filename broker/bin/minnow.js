#!/usr/bin/env node
// The `minnow` command. In a checkout (TypeScript sources and tsx present) it runs the sources, so
// a stale dist/ never shadows them; an installed broker (npm ci --omit=dev) runs the compiled dist/.
const path = require('node:path');
const fs = require('node:fs');

const source = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
const built = path.join(__dirname, '..', 'dist', 'cli', 'main.js');

function hasTsx() {
  try {
    require.resolve('tsx/cjs');
    return true;
  } catch {
    return false;
  }
}

if (fs.existsSync(source) && hasTsx()) {
  require('tsx/cjs');
  require(source).main(process.argv.slice(2));
} else if (fs.existsSync(built)) {
  require(built).main(process.argv.slice(2));
} else {
  console.error(
    'minnow: neither dist/cli/main.js (run `npm run build` in broker/) nor the TypeScript sources with tsx were found',
  );
  process.exit(1);
}
