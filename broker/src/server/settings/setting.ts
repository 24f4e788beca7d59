// One broker setting (server/config.ts composes them into SETTINGS): the env var, the flag, the
// default, the doc line of --help and docs/configuration.md, and the parser that validates it.

/** One setting of the part `C` of the broker's configuration: its env name, flag, default and parser. */
export interface Setting<C, K extends keyof C = keyof C> {
  key: K;
  env: string;
  flag: string;
  doc: string;
  default: string | undefined;
  expected: string;
  /** The value, or undefined when `value` is not of the expected form. */
  parse(value: string): C[K] | undefined;
}

/** An integer within [min, max]. */
export const int = (min: number, max: number) => (v: string) => {
  if (!/^-?\d+$/.test(v.trim())) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};

export const bool = (v: string) => (/^(true|1|yes)$/i.test(v) ? true : /^(false|0|no)$/i.test(v) ? false : undefined);

/** A non-empty string (a path, a name), trimmed. */
export const nonEmpty = (v: string) => (v.trim() ? v.trim() : undefined);
