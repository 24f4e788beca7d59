// The README's Configuration table is what users read: every setting `minnow serve` accepts must
// be in it, with its flag and its real default, so a new limit cannot ship undocumented.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SETTINGS } from '../../src/server/config';

const readme = fs.readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
const rows = new Map(
  readme
    .split('\n')
    .filter((l) => /^\| `[A-Z0-9_]+` \|/.test(l))
    .map((l) => [/^\| `([A-Z0-9_]+)`/.exec(l)![1]!, l.split('|').map((c) => c.trim())]),
);

describe('README Configuration table', () => {
  it.each(SETTINGS.map((s) => [s.env, s] as const))('documents %s with its flag and default', (_env, s) => {
    const row = rows.get(s.env);
    if (!row) throw new Error(`README.md has no Configuration row for ${s.env} (--${s.flag}); add one`);
    expect(row[2]).toBe(`\`--${s.flag}\``);
    if (s.default !== undefined) expect(row[3]).toContain(`\`${s.default}\``);
  });
});
