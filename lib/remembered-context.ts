import * as fs from 'node:fs';

/**
 * Values that must never drift between deploys of one stack. bin/minnow.ts writes them to
 * cdk.context.json (the file the CDK CLI reads on every run and CDK documents for values that must
 * stay put) under one key per stack and value; readConfig falls back to them and refuses a -c value
 * that contradicts them.
 * - The data volume's zone, snapshot, size and key: a new zone, snapshot or key REPLACES the volume
 *   (CloudFormation marks AvailabilityZone, SnapshotId and KmsKeyId "Replacement"), and EBS refuses
 *   a smaller size.
 * - The image and its architecture (both kinds of stack): ImageId is "Replacement" too, so the
 *   image moves only on purpose (`npm run ops -- image --update`, or an explicit -c amiId).
 * - A cluster's storage, zones and broker count: without storage=postgres the app would synthesize
 *   the single-instance stack under the same name (deleting the database); other zones replace the
 *   subnets and brokers.
 */
export const Remembered = {
  availabilityZone: 'availabilityZone',
  dataSnapshotId: 'dataSnapshotId',
  dataVolumeGiB: 'dataVolumeGiB',
  dataVolumeKmsKeyArn: 'dataVolumeKmsKeyArn',
  amiId: 'amiId',
  amiArchitecture: 'amiArchitecture',
  storage: 'storage',
  availabilityZones: 'availabilityZones',
  brokers: 'brokers',
} as const;
export type Remembered = (typeof Remembered)[keyof typeof Remembered];

/** The names only a single SQLite stack remembers: any of them set means that stack exists (or existed). */
export const VOLUME_REMEMBERED: readonly Remembered[] = [
  Remembered.availabilityZone,
  Remembered.dataSnapshotId,
  Remembered.dataVolumeGiB,
  Remembered.dataVolumeKmsKeyArn,
];

/** The stack name without -c stackName. */
export const DEFAULT_STACK_NAME = 'Minnow';

/** What is remembered for "no snapshot" (a blank volume) and "the account's default key". */
export const REMEMBERED_NONE = 'none';

/** The cdk.context.json key that remembers one value of one stack, e.g. minnow:Minnow:availabilityZone. */
export function rememberedKey(stackName: string, name: Remembered): string {
  return `minnow:${stackName}:${name}`;
}

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
