// postinstall: puts the broker's `minnow` command into node_modules/.bin, so `npx minnow ...` at the
// repository root runs this checkout's CLI (without it npx would try to install the package itself).
const fs = require('node:fs');
const path = require('node:path');

const binDir = path.join(__dirname, '..', 'node_modules', '.bin');
const link = path.join(binDir, 'minnow');
const target = path.join('..', '..', 'broker', 'bin', 'minnow.js');
fs.mkdirSync(binDir, { recursive: true });
try {
  fs.unlinkSync(link);
} catch {
  // not there yet
}
fs.symlinkSync(target, link);
fs.chmodSync(path.join(__dirname, '..', 'broker', 'bin', 'minnow.js'), 0o755);
