/**
 * Regenerates the settings table of docs/configuration.md from SETTINGS (src/server/config.ts),
 * between its config-reference markers; the prose around them is kept.
 *
 *   npm run -w broker generate:config-reference
 *
 * test/docs/config-reference.test.ts fails while the committed file differs from this output.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_REFERENCE_DOC, withSettingsTable } from './config-reference';

const current = fs.readFileSync(CONFIG_REFERENCE_DOC, 'utf8');
const next = withSettingsTable(current);
const shown = path.relative(process.cwd(), CONFIG_REFERENCE_DOC);
if (next === current) {
  console.log(`${shown} is up to date`);
} else {
  fs.writeFileSync(CONFIG_REFERENCE_DOC, next);
  console.log(`wrote ${shown}`);
}
