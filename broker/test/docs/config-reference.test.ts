// docs/configuration.md's settings table is generated from SETTINGS (src/server/config.ts), as the
// codec is from Kafka's specs: a setting added, renamed or re-defaulted without regenerating the
// doc fails here, so the reference users read is the list the broker accepts.
import * as fs from 'node:fs';
import { SETTINGS } from '../../src/server/config';
import {
  CONFIG_REFERENCE_DOC,
  readableDefault,
  renderSettingsTable,
  withSettingsTable,
} from '../../scripts/config-reference';

const committed = fs.readFileSync(CONFIG_REFERENCE_DOC, 'utf8');

describe('docs/configuration.md', () => {
  it('is what the generator writes from SETTINGS', () => {
    if (withSettingsTable(committed) !== committed) {
      throw new Error('docs/configuration.md is stale: run npm run -w broker generate:config-reference');
    }
  });

  it.each(SETTINGS.map((s) => [s.env, s] as const))('has a row for %s with its flag and default', (env, s) => {
    const row = committed.split('\n').find((l) => l.startsWith(`| \`${env}\` |`));
    expect(row).toBeDefined();
    const cells = row!.split(/(?<!\\)\|/).map((c) => c.trim());
    expect(cells[2]).toBe(`\`--${s.flag}\``);
    if (s.default) expect(cells[3]).toContain(`\`${s.default}\``);
  });

  it('keeps the hand-written prose around the table', () => {
    const doc = 'intro\n<!-- config-reference:start (x) -->\nold table\n<!-- config-reference:end -->\nnotes\n';
    const out = withSettingsTable(doc, [{ env: 'A_MS', flag: 'a', doc: 'd', default: '1', expected: 'x' }]);
    expect(out.startsWith('intro\n<!-- config-reference:start')).toBe(true);
    expect(out).not.toContain('old table');
    expect(out.endsWith('<!-- config-reference:end -->\nnotes\n')).toBe(true);
  });

  it('refuses a document without the markers rather than guess where the table goes', () => {
    expect(() => withSettingsTable('# Configuration\n')).toThrow(/no config-reference markers/);
  });

  it("escapes pipes (GFM splits cells on them even in code) and marks other settings' names as code", () => {
    const table = renderSettingsTable([
      { env: 'X_MODE', flag: 'x-mode', doc: 'at most Y_BYTES, not NOT_A_SETTING', default: 'a', expected: 'a|b' },
      { env: 'Y_BYTES', flag: 'y-bytes', doc: 'y', default: '', expected: 'n' },
    ]);
    expect(table).toContain('| `X_MODE` | `--x-mode` | `a` | a\\|b | at most `Y_BYTES`, not NOT_A_SETTING |');
    expect(table).toContain('| `Y_BYTES` | `--y-bytes` | empty | n | y |');
  });

  it.each([
    ['FETCH_MAX_BYTES', '16777216', '16 MiB'],
    ['MINNOW_MIN_FREE_BYTES', '268435456', '256 MiB'],
    ['TRANSACTIONAL_ID_EXPIRATION_MS', '604800000', '7 days'],
    ['TRANSACTION_MAX_TIMEOUT_MS', '900000', '15 min'],
    ['LOG_CLEANER_BACKOFF_MS', '15000', '15 s'],
    ['MAX_CONNECTIONS_PER_IP', '2147483647', undefined],
    ['MINNOW_COMMIT_INTERVAL_MS', '1', undefined],
    ['QUOTA_WINDOW_NUM', '11', undefined],
  ])('reads %s=%s as %s', (env, value, readable) => {
    expect(readableDefault(env, value)).toBe(readable);
  });
});
