// Command-line argument handling shared by the CLI (cli/) and the load tool (perf/): node:util
// parseArgs plus the client options every client command takes. Neutral, so perf/ needs no cli/.
import { parseArgs, ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const CLIENT_OPTIONS = {
  'bootstrap-server': { type: 'string', short: 'b' },
  help: { type: 'boolean', short: 'h' },
  // SASL (client-auth.ts reads them)
  user: { type: 'string' },
  'password-file': { type: 'string' },
  'sasl-mechanism': { type: 'string' },
} as const;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options: { ...CLIENT_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}

/** Where client commands (and the load tool) connect when neither flag nor env var says. */
export const DEFAULT_BOOTSTRAP_SERVER = 'localhost:9092';

/** --bootstrap-server, else MINNOW_BOOTSTRAP_SERVER, else localhost:9092. */
export function bootstrapFrom(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? env.MINNOW_BOOTSTRAP_SERVER ?? DEFAULT_BOOTSTRAP_SERVER;
}

/** bootstrapFrom for parsed values and this process's environment. */
export function bootstrapOf(values: Record<string, unknown>): string {
  return bootstrapFrom(values['bootstrap-server'] as string | undefined, process.env);
}

export function intOption(values: Record<string, unknown>, name: string, fallback: number, min = 0): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} ${String(raw)}: expected an integer >= ${min}`);
  return n;
}
