// Shared CLI argument handling: node:util parseArgs plus the client options every command takes.
import { parseArgs, ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const CLIENT_OPTIONS = {
  'bootstrap-server': { type: 'string', short: 'b' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options: { ...CLIENT_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}

/** --bootstrap-server, else MINNOW_BOOTSTRAP_SERVER, else localhost:9092. */
export function bootstrapOf(values: Record<string, unknown>): string {
  return (values['bootstrap-server'] as string | undefined) ?? process.env.MINNOW_BOOTSTRAP_SERVER ?? 'localhost:9092';
}

export function intOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} ${String(raw)}: expected an integer >= ${min}`);
  return n;
}
