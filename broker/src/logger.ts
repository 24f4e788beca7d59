// Structured logs: one JSON object per line on stderr, filtered by level (LOG_LEVEL).
import { types } from 'node:util';
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  readonly level: LogLevel;
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
  enabled(level: LogLevel): boolean;
}

const rank = (l: LogLevel) => LOG_LEVELS.indexOf(l);

/**
 * BigInt and Error values made printable. An Error made in another realm (a vm context, jest's
 * module registry) is no `instanceof Error` here, and JSON would print it as {}: isNativeError
 * knows it anyway.
 */
function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error || types.isNativeError(value)) return { name: value.name, message: value.message };
  return value;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const max = rank(level);
  const log = (l: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (rank(l) > max) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }, replacer) + '\n');
  };
  return {
    level,
    error: log('error'),
    warn: log('warn'),
    info: log('info'),
    debug: log('debug'),
    enabled: (l) => rank(l) <= max,
  };
}

export const silentLogger: Logger = createLogger('error', () => {});

/** How long repeated warnings of one kind are counted instead of logged (see WarningLimiter). */
export const WARNING_SUMMARY_INTERVAL_MS = 10_000;

/**
 * Rate-limits repeated log lines of one kind (e.g. "closing connection: malformed request"): the
 * first is logged, later ones within the interval are counted, and one line per interval then
 * says how many were suppressed. A flood of bad clients costs a line per kind every 10 s, not a
 * line each. One timer per kind while it is suppressing, none when quiet.
 */
export class WarningLimiter {
  private readonly kinds = new Map<
    string,
    { suppressed: number; msg: string; level: LogLevel; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = WARNING_SUMMARY_INTERVAL_MS,
  ) {}

  /** Logs `msg` at `level` unless a line of this kind (default: the message) was logged within the interval. */
  log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}, kind = msg): void {
    const seen = this.kinds.get(kind);
    if (seen) {
      seen.suppressed++;
      return;
    }
    this.logger[level](msg, fields);
    const state = { suppressed: 0, msg, level, timer: setTimeout(() => this.summarize(kind), this.intervalMs) };
    state.timer.unref();
    this.kinds.set(kind, state);
  }

  warn(msg: string, fields?: Record<string, unknown>, kind?: string): void {
    this.log('warn', msg, fields, kind);
  }

  /** Logs the pending counts now (at shutdown) and forgets every kind. */
  flush(): void {
    for (const kind of [...this.kinds.keys()]) this.summarize(kind, true);
  }

  private summarize(kind: string, final = false): void {
    const state = this.kinds.get(kind);
    if (!state) return;
    if (state.suppressed === 0 || final) {
      clearTimeout(state.timer);
      this.kinds.delete(kind);
      if (state.suppressed === 0) return;
    }
    this.logger[state.level](`${state.msg} (${state.suppressed} more like this suppressed)`, {
      suppressed: state.suppressed,
      intervalMs: this.intervalMs,
    });
    if (final) return;
    // Keep counting for another interval: at most one line per interval while the flood lasts.
    state.suppressed = 0;
    state.timer = setTimeout(() => this.summarize(kind), this.intervalMs);
    state.timer.unref();
  }
}
