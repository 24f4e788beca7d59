import * as fs from 'node:fs';

/**
 * cdk.context.json, next to cdk.json: the CDK CLI passes its entries to the app as context on every
 * run, and CDK documents it as the file that keeps values which must not change between deploys
 * (commit it). The CLI rewrites it only after a context lookup, which this env-agnostic app never does.
 */
export const CONTEXT_FILE = 'cdk.context.json';

function readContextFile(file: string): Record<string, unknown> {
  if (!fs.existsSync(file)) return {};
  const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${file} does not hold a JSON object; fix it or move it away`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Writes the entries that differ from the file's, keeping every other entry; returns the keys it
 * changed (none: the file is left untouched).
 */
export function rememberInContextFile(file: string, entries: Record<string, string | number>): string[] {
  const context = readContextFile(file);
  const changed = Object.keys(entries).filter((key) => String(context[key]) !== String(entries[key]));
  if (changed.length === 0) return [];
  for (const key of changed) context[key] = entries[key];
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(context, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
  return changed;
}

/** One remembered value, or undefined. */
export function readRemembered(file: string, key: string): string | undefined {
  const value = readContextFile(file)[key];
  return value === undefined || value === null ? undefined : String(value);
}
