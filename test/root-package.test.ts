// The repository root's own promises to users: `npm start` runs the broker on 127.0.0.1:9092 with
// ./data/minnow.db, and `npx minnow` runs this checkout's CLI (linked by the postinstall).
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('root package', () => {
  it('starts the broker on 127.0.0.1:9092 (state in ./data/minnow.db by default)', () => {
    expect(pkg.scripts.start).toBe('node broker/bin/minnow.js serve --listener tcp://127.0.0.1:9092');
  });

  it('links `minnow` into node_modules/.bin so npx finds the local CLI', () => {
    expect(pkg.scripts.postinstall).toContain('node scripts/link-minnow-bin.js');
    const link = path.join(root, 'node_modules', '.bin', 'minnow');
    expect(fs.realpathSync(link)).toBe(fs.realpathSync(path.join(root, 'broker', 'bin', 'minnow.js')));
  });
});
