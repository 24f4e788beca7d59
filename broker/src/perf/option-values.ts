// The values of `minnow perf`'s options: durations such as 60s or 5m, acks all→-1, integers with
// bounds, codec names, HOST:PORT, and --producer-props k=v pairs. Pure: throws UsageError.
import { CompressionType } from '../protocol/compression';
import { UsageError } from '../args';

export const COMPRESSION_NAMES: Record<string, CompressionType> = {
  none: CompressionType.None,
  gzip: CompressionType.Gzip,
  snappy: CompressionType.Snappy,
  lz4: CompressionType.Lz4,
  zstd: CompressionType.Zstd,
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration in ms: "250ms", "60s", "5m", "1h", "1.5s", or a bare number, read in `bareUnit`
 * (seconds for --duration, as both tools take; kafka-style ms flags pass "ms").
 */
export function parseDuration(flag: string, raw: string, bareUnit: 'ms' | 's' = 's'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`--${flag} ${raw}: expected a duration such as 500ms, 60s, 5m or 1h`);
  const ms = Number(m[1]) * UNIT_MS[m[2] ?? bareUnit]!;
  if (!(ms > 0)) throw new UsageError(`--${flag} ${raw}: must be more than zero`);
  return Math.round(ms);
}

/** acks as the protocol carries it: 0, 1 or -1 (all). */
export function parseAcks(raw: string): -1 | 0 | 1 {
  if (raw === 'all' || raw === '-1') return -1;
  if (raw === '0' || raw === '1') return Number(raw) as 0 | 1;
  throw new UsageError(`--acks ${raw}: expected 0, 1 or all`);
}

/** An integer option; `min` bounds it, and -1 may be allowed as "unlimited". */
export function parseInteger(flag: string, raw: string, min: number, allowMinusOne = false): number {
  const n = Number(raw.trim());
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || (n < min && !(allowMinusOne && n === -1))) {
    throw new UsageError(
      `--${flag} ${raw}: expected an integer >= ${min}${allowMinusOne ? ' (or -1 for unlimited)' : ''}`,
    );
  }
  return n;
}

export function parseCompression(raw: string): CompressionType {
  const c = COMPRESSION_NAMES[raw.toLowerCase()];
  if (c === undefined)
    throw new UsageError(`--compression ${raw}: expected ${Object.keys(COMPRESSION_NAMES).join('|')}`);
  return c;
}

export function parseHostPortOption(flag: string, raw: string): { host: string; port: number } {
  const m = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(raw.trim());
  if (!m || Number(m[2]) > 65535) throw new UsageError(`--${flag} ${raw}: expected HOST:PORT`);
  return { host: m[1]!, port: Number(m[2]) };
}

/** "k=v" pairs (one per argument, or several in one argument separated by spaces or commas). */
export function parseProps(flag: string, raws: readonly string[]): Map<string, string> {
  const props = new Map<string, string>();
  for (const raw of raws) {
    for (const pair of raw.split(/[\s,]+/).filter(Boolean)) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--${flag} ${pair}: expected KEY=VALUE`);
      props.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  return props;
}
