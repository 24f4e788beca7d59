// PostgreSQL text cannot hold U+0000 (22021 "invalid byte sequence"), but a Kafka string may (a
// group id, commit metadata, a transactional id, an ACL principal: sqlite:// stores them as sent).
// Every string parameter is escaped on the way in and every string read back unescaped, in Db, so
// no table or query needs to know: U+0001 is the escape character, U+0000 -> U+0001 U+0001 and
// U+0001 -> U+0001 U+0002. Strings with neither (all real ones) are stored unchanged.
const NUL = '\u0000';
const ESC = '\u0001';

export function escapeNul(s: string): string {
  if (!s.includes(NUL) && !s.includes(ESC)) return s;
  let out = '';
  for (const ch of s) out += ch === NUL ? ESC + ESC : ch === ESC ? ESC + '\u0002' : ch;
  return out;
}

export function unescapeNul(s: string): string {
  if (!s.includes(ESC)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch !== ESC || i + 1 >= s.length) {
      out += ch;
      continue;
    }
    const next = s[++i]!;
    out += next === ESC ? NUL : next === '\u0002' ? ESC : ESC + next; // not ours: kept as is
  }
  return out;
}

/** A query's parameters with their strings (also inside arrays: unnest's) escaped. */
export function escapeParams(values: unknown[] | undefined): unknown[] | undefined {
  if (values === undefined) return undefined;
  let changed: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const e = typeof v === 'string' ? escapeNul(v) : Array.isArray(v) ? escapeArray(v) : v;
    if (e !== v) (changed ??= [...values])[i] = e;
  }
  return changed ?? values;
}

function escapeArray(a: unknown[]): unknown[] {
  let changed: unknown[] | undefined;
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (typeof v !== 'string') continue;
    const e = escapeNul(v);
    if (e !== v) (changed ??= [...a])[i] = e;
  }
  return changed ?? a;
}

/** Unescapes the rows' string fields in place (also in arrays and json objects); Buffers untouched. */
export function unescapeRows<R>(rows: R[]): R[] {
  if (!Array.isArray(rows)) return rows; // a multi-statement text (migrations): no rows
  for (const row of rows) unescapeObject(row as Record<string, unknown>);
  return rows;
}

function unescapeObject(o: Record<string, unknown>): void {
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (typeof v === 'string') {
      if (v.includes(ESC)) o[key] = unescapeNul(v);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'string') v[i] = unescapeNul(v[i] as string);
    } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v) && !(v instanceof Date)) {
      unescapeObject(v as Record<string, unknown>);
    }
  }
}
