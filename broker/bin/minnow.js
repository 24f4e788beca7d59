#!/usr/bin/env node
// The `minnow` command. Runs the compiled CLI when built (dist/), otherwise the TypeScript source via tsx.
const path = require('node:path');
const fs = require('node:fs');
const built = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
if (fs.existsSync(built)) {
  require(built).main(process.argv.slice(2));
} else {
  require('tsx/cjs');
  require(path.join(__dirname, '..', 'src', 'cli', 'main.ts')).main(process.argv.slice(2));
}
