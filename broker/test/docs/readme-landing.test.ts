// The README is the landing page (issue 31): what minnow is, the two commands, deploying,
// connecting, where next. Reference material grows; it belongs in docs/, where the index
// (docs/README.md) points at it, so the landing page stays short enough to read.
import * as fs from 'node:fs';
import * as path from 'node:path';

const README = path.resolve(__dirname, '../../../README.md');
const MAX_LINES = 200;

describe('README.md', () => {
  it(`stays a landing page of at most ${MAX_LINES} lines`, () => {
    const lines = fs.readFileSync(README, 'utf8').trimEnd().split('\n').length;
    if (lines > MAX_LINES) {
      throw new Error(
        `README.md has ${lines} lines, more than ${MAX_LINES}: move reference material to docs/ (settings: docs/configuration.md, operating the AWS stack: docs/operations.md, limits: docs/limits.md, clients and APIs: docs/compat.md, ...) and link it from docs/README.md`,
      );
    }
  });

  it('states `npm test` as the test command (CI runs "the README\'s test command")', () => {
    expect(fs.readFileSync(README, 'utf8')).toMatch(/`npm test` runs every test/);
  });
});
