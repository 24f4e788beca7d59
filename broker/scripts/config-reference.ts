/**
 * docs/configuration.md's settings table, rendered from the SETTINGS table of src/server/config.ts
 * (the one list that also drives the env vars, the flags, validation and `minnow serve --help`), so
 * the reference cannot drift from what the broker accepts. Pure: the generator script writes it,
 * the staleness test (test/docs/config-reference.test.ts) compares it with the committed file.
 */
import * as path from 'node:path';
import { SETTINGS } from '../src/server/config';

/** The document that holds the table, from the repository root. */
export const CONFIG_REFERENCE_DOC = path.resolve(__dirname, '../../docs/configuration.md');

const START =
  '<!-- config-reference:start (generated from SETTINGS in broker/src/server/config.ts by `npm run -w broker generate:config-reference`; edits here are overwritten) -->';
const END = '<!-- config-reference:end -->';

/** What the table reads from one setting (SETTINGS' own shape, without the parser). */
export interface DocumentedSetting {
  env: string;
  flag: string;
  doc: string;
  default: string | undefined;
  expected: string;
}

const KiB = 1024;
const UNITS_MS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1000, 's'],
];

/** 16777216 -> "16 MiB", 900000 (a _MS setting) -> "15 min"; undefined when no exact unit reads better. */
export function readableDefault(env: string, value: string): string | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  if (env.endsWith('_BYTES') && n >= KiB) {
    for (const [size, unit] of [
      [KiB ** 3, 'GiB'],
      [KiB ** 2, 'MiB'],
      [KiB, 'KiB'],
    ] as const) {
      if (n % size === 0) return `${n / size} ${unit}`;
    }
  }
  if (env.endsWith('_MS') && n >= 10_000) {
    for (const [size, unit] of UNITS_MS) {
      if (n % size !== 0) continue;
      const count = n / size;
      return unit === 'day' ? `${count} day${count === 1 ? '' : 's'}` : `${count} ${unit}`;
    }
  }
  return undefined;
}

/** A table cell: pipes escaped (GFM splits cells on them, even inside code spans), one line. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** The other settings' variable names in a doc string, as code (`SOCKET_REQUEST_MAX_BYTES`). */
function codeNames(text: string, envNames: ReadonlySet<string>): string {
  return text.replace(/(^|[^`\w])([A-Z][A-Z0-9_]{2,})(?=[^`\w]|$)/g, (whole, before: string, name: string) =>
    envNames.has(name) ? `${before}\`${name}\`` : whole,
  );
}

function defaultCell(s: DocumentedSetting): string {
  if (s.default === undefined) return 'unset';
  if (s.default === '') return 'empty';
  const readable = readableDefault(s.env, s.default);
  return `\`${s.default}\`${readable ? ` (${readable})` : ''}`;
}

/** The markdown table, one row per setting in SETTINGS' order. */
export function renderSettingsTable(settings: readonly DocumentedSetting[]): string {
  const envNames = new Set(settings.map((s) => s.env));
  const rows = settings.map(
    (s) =>
      `| \`${s.env}\` | \`--${s.flag}\` | ${cell(defaultCell(s))} | ${cell(s.expected)} | ${cell(codeNames(s.doc, envNames))} |`,
  );
  return ['| Variable | Flag | Default | Accepted values | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * The document with its generated block replaced by the current table. Throws when the markers are
 * missing: the prose around them is hand-written and must not be guessed at.
 */
export function withSettingsTable(doc: string, settings: readonly DocumentedSetting[] = SETTINGS): string {
  // The start marker is found by its name alone: its explanation may be reworded.
  const a = doc.indexOf('<!-- config-reference:start');
  const b = doc.indexOf(END, a);
  if (a < 0 || b < 0) {
    throw new Error(
      `docs/configuration.md has no config-reference markers: put the lines\n${START}\n${END}\nwhere the settings table belongs`,
    );
  }
  return `${doc.slice(0, a)}${START}\n${renderSettingsTable(settings)}\n${doc.slice(b)}`;
}
