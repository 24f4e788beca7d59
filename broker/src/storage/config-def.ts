// Kafka's config value rules (org.apache.kafka.common.config.ConfigDef): how a string is parsed
// for each type, how the parsed value is written back (what DescribeConfigs shows), and the
// validators topic and broker configs use, with Kafka's error texts ("Invalid value X for
// configuration Y: ..."). LONG values stay strings/bigint: Long.MAX_VALUE is not a JS number.

/** ConfigDef.Type, numbered as DescribeConfigsResponse.ConfigType (v3+). */
export const ConfigType = {
  UNKNOWN: 0,
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
} as const;
export type ConfigTypeId = (typeof ConfigType)[keyof typeof ConfigType];

/** A parsed value: bigint for INT/LONG, number for DOUBLE, boolean, string, or string[] for LIST. */
export type ParsedValue = bigint | number | boolean | string | string[];

/** Returns an error (the part after "Invalid value V for configuration N: ") or null. */
export type Validator = (parsed: ParsedValue) => { shown: string; message: string } | null;

export type ParseResult = { ok: true; value: ParsedValue; text: string } | { ok: false; message: string };

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** java.lang.String.trim: strips code points <= U+0020 at both ends. */
export function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

/** java.lang.Double.toString: plain between 1e-3 and 1e7, else d.dddE±n; always a fraction digit. */
export function javaDoubleToString(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exp] = d.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exp.replace('+', '')}`;
}

// Double.parseDouble's decimal grammar (hex floats left out), with the optional f/d suffix.
const JAVA_DOUBLE = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/;
const JAVA_INTEGER = /^[+-]?\d+$/;

/** How Java prints a parsed value in a ConfigException ("Invalid value <this> ..."). */
export function showParsed(v: ParsedValue): string {
  if (Array.isArray(v)) return `[${v.join(', ')}]`;
  if (typeof v === 'number') return javaDoubleToString(v);
  return String(v);
}

/** ConfigDef.convertToString of a parsed value: what DescribeConfigs reports. */
export function valueText(v: ParsedValue): string {
  if (Array.isArray(v)) return v.join(',');
  if (typeof v === 'number') return javaDoubleToString(v);
  return String(v);
}

export function invalidValue(name: string, shown: string, message: string): string {
  return `Invalid value ${shown} for configuration ${name}: ${message}`;
}

/** ConfigDef.parseType for the types topic and broker configs use. */
export function parseType(name: string, raw: string, type: ConfigTypeId): ParseResult {
  const trimmed = javaTrim(raw);
  const fail = (message: string): ParseResult => ({ ok: false, message: invalidValue(name, raw, message) });
  const ok = (value: ParsedValue): ParseResult => ({ ok: true, value, text: valueText(value) });
  switch (type) {
    case ConfigType.BOOLEAN: {
      const lower = trimmed.toLowerCase();
      return lower === 'true' || lower === 'false'
        ? ok(lower === 'true')
        : fail('Expected value to be either true or false');
    }
    case ConfigType.STRING:
    case ConfigType.CLASS:
    case ConfigType.PASSWORD:
      return ok(trimmed);
    case ConfigType.INT:
    case ConfigType.SHORT:
    case ConfigType.LONG: {
      const [min, max, typeName] =
        type === ConfigType.LONG
          ? [LONG_MIN, LONG_MAX, 'LONG']
          : type === ConfigType.INT
            ? [INT_MIN, INT_MAX, 'INT']
            : [-32768n, 32767n, 'SHORT'];
      if (!JAVA_INTEGER.test(trimmed)) return fail(`Not a number of type ${typeName}`);
      const n = BigInt(trimmed);
      return n < min || n > max ? fail(`Not a number of type ${typeName}`) : ok(n);
    }
    case ConfigType.DOUBLE:
      return JAVA_DOUBLE.test(trimmed)
        ? ok(Number(trimmed.replace(/[fFdD]$/, '')))
        : fail('Not a number of type DOUBLE');
    case ConfigType.LIST:
      return ok(trimmed === '' ? [] : trimmed.split(/\s*,\s*/));
    default:
      return fail(`type ${type} is not supported`);
  }
}

// ---- Validators (ConfigDef.Range, ValidString, ValidList and Kafka's own ones) ----

const asNumber = (v: ParsedValue): number => (typeof v === 'bigint' ? Number(v) : (v as number));

/** Range.atLeast / Range.between: compared as doubles, as Kafka does. */
export function range(min: number | bigint | null, max: number | bigint | null = null): Validator {
  return (v) => {
    const n = typeof v === 'bigint' ? v : asNumber(v);
    if (min !== null && n < min) return { shown: showParsed(v), message: `Value must be at least ${min}` };
    if (max !== null && n > max) return { shown: showParsed(v), message: `Value must be no more than ${max}` };
    return null;
  };
}
export const atLeast = (min: number | bigint) => range(min);
export const between = (min: number | bigint, max: number | bigint) => range(min, max);

/** ValidString.in */
export function validString(...allowed: string[]): Validator {
  return (v) =>
    allowed.includes(v as string)
      ? null
      : { shown: String(v), message: `String must be one of: ${allowed.join(', ')}` };
}

/** ValidList.in: each item must be one of `allowed` (the error names the item). */
export function validList(...allowed: string[]): Validator {
  const one = validString(...allowed);
  return (v) => {
    for (const item of v as string[]) {
      const err = one(item);
      if (err) return err;
    }
    return null;
  };
}

/** ThrottledReplicaListValidator: '*' or partitionId:brokerId pairs. */
export const throttledReplicaList =
  (name: string): Validator =>
  (v) => {
    const items = (v as string[]).map((s) => javaTrim(s));
    if (items.every((s) => /^([0-9]+:[0-9]+)?$/.test(s)) || items.join('') === '*') return null;
    return {
      shown: showParsed(v),
      message: `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`,
    };
  };

/** GZIP level validator (CompressionType.GZIP.levelValidator). */
export const gzipLevel: Validator = (v) => {
  const level = Number(v);
  return level > 9 || (level < 1 && level !== -1)
    ? { shown: showParsed(v), message: 'Value must be between 1 and 9 or equal to -1' }
    : null;
};

// MetadataVersion ids Kafka 3.9 knows (release + "-IV" sub-version); release-only strings map to
// the latest production one. fromVersionString keeps only the first 2 parts (3 for "0.x") of the input.
const IBP_VERSIONS: readonly string[] = [
  '0.8.0',
  '0.8.1',
  '0.8.2',
  '0.9.0',
  ...[
    '0.10.0-IV0',
    '0.10.0-IV1',
    '0.10.1-IV0',
    '0.10.1-IV1',
    '0.10.1-IV2',
    '0.10.2-IV0',
    '0.11.0-IV0',
    '0.11.0-IV1',
    '0.11.0-IV2',
  ],
  ...[
    '1.0-IV0',
    '1.1-IV0',
    '2.0-IV0',
    '2.0-IV1',
    '2.1-IV0',
    '2.1-IV1',
    '2.1-IV2',
    '2.2-IV0',
    '2.2-IV1',
    '2.3-IV0',
    '2.3-IV1',
  ],
  ...[
    '2.4-IV0',
    '2.4-IV1',
    '2.5-IV0',
    '2.6-IV0',
    '2.7-IV0',
    '2.7-IV1',
    '2.7-IV2',
    '2.8-IV0',
    '2.8-IV1',
    '3.0-IV0',
    '3.0-IV1',
  ],
  ...['3.1-IV0', '3.2-IV0', '3.3-IV0', '3.3-IV1', '3.3-IV2', '3.3-IV3', '3.4-IV0', '3.5-IV0', '3.5-IV1', '3.5-IV2'],
  ...['3.6-IV0', '3.6-IV1', '3.6-IV2', '3.7-IV0', '3.7-IV1', '3.7-IV2', '3.7-IV3', '3.7-IV4', '3.8-IV0', '3.9-IV0'],
];
const KNOWN_VERSION_KEYS = new Set([...IBP_VERSIONS, ...IBP_VERSIONS.map((v) => v.replace(/-IV\d+$/, ''))]);

/** MetadataVersionValidator (message.format.version). */
export const metadataVersion: Validator = (v) => {
  const s = v as string;
  const parts = s.split('.');
  const keep = s.startsWith('0.') ? 3 : 2;
  const key = keep >= parts.length ? s : parts.slice(0, keep).join('.');
  return KNOWN_VERSION_KEYS.has(key) ? null : { shown: s, message: `Version ${s} is not a valid version` };
};

/** Parses then validates one value; the Kafka error message, or the parsed value and its text. */
export function parseAndValidate(
  name: string,
  raw: string,
  type: ConfigTypeId,
  validator: Validator | null,
): ParseResult {
  const parsed = parseType(name, raw, type);
  if (!parsed.ok || !validator) return parsed;
  const err = validator(parsed.value);
  return err ? { ok: false, message: invalidValue(name, err.shown, err.message) } : parsed;
}

/**
 * Parses and validates every value of a config set, each by its own definition (the caller has
 * checked the names); the values written as DescribeConfigs reports them, or the first Kafka error.
 */
export function parseAll(
  configs: Record<string, string>,
  defOf: (name: string) => { type: ConfigTypeId; validator: Validator | null },
): { ok: true; configs: Record<string, string> } | { ok: false; message: string } {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(configs)) {
    const def = defOf(name);
    const parsed = parseAndValidate(name, raw, def.type, def.validator);
    if (!parsed.ok) return { ok: false, message: parsed.message };
    out[name] = parsed.text;
  }
  return { ok: true, configs: out };
}
