// Structured logs: one JSON object per line on stderr, filtered by level (LOG_LEVEL).
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

/** BigInt and Error values made printable. */
function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message };
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
