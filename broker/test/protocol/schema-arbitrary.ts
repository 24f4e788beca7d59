// Builds fast-check arbitraries for any message of the generated codec, from the specs embedded in
// src/protocol/messages/schemas.ts, so property tests cover every field of every version.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { parseRange } from '../../scripts/generate-protocol';

export interface FieldJson {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  tag?: number | string;
  taggedVersions?: string;
  fields?: FieldJson[];
}
export interface SchemaJson {
  name: string;
  type: string;
  apiKey?: number;
  validVersions: string;
  flexibleVersions: string;
  fields: FieldJson[];
  commonStructs: { name: string; fields: FieldJson[] }[];
}

export const inRange = (s: string | undefined, v: number) => {
  const r = parseRange(s);
  return v >= r.min && v <= r.max;
};
export const versionsOf = (s: SchemaJson) => {
  const r = parseRange(s.validVersions);
  const out: number[] = [];
  for (let v = r.min; v <= r.max; v++) out.push(v);
  return out;
};
const camel = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const isArray = (t: string) => t.startsWith('[]');
const elemType = (t: string) => (isArray(t) ? t.slice(2) : t);

function structFields(schema: SchemaJson): Map<string, FieldJson[]> {
  const m = new Map<string, FieldJson[]>();
  const walk = (fields: FieldJson[]) => {
    for (const f of fields) {
      if (f.fields) {
        m.set(elemType(f.type), f.fields);
        walk(f.fields);
      }
    }
  };
  for (const c of schema.commonStructs) {
    m.set(c.name, c.fields);
    walk(c.fields);
  }
  walk(schema.fields);
  return m;
}

/** Whether field f is on the wire in version v (regular or tagged). */
export const present = (f: FieldJson, v: number, flexible: boolean) =>
  inRange(f.versions, v) && (f.tag === undefined || (flexible && inRange(f.taggedVersions ?? f.versions, v)));

const maxLen = 4;

function primitive(t: string, flexibleString: boolean): fc.Arbitrary<unknown> {
  switch (t) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'uint32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'float64':
      return fc.double({ noNaN: true }).filter((d) => !Object.is(d, -0));
    case 'uuid':
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64url'));
    case 'string':
      return fc.string({ unit: flexibleString ? 'grapheme' : 'grapheme-ascii', maxLength: 12 });
    case 'bytes':
    case 'records':
      return fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));
    default:
      throw new Error(`not a primitive: ${t}`);
  }
}

export function messageArbitrary(schema: SchemaJson, v: number): fc.Arbitrary<Record<string, unknown>> {
  const structs = structFields(schema);
  const flexible = inRange(schema.flexibleVersions, v);
  const memo = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

  const valueOf = (f: FieldJson, depth: number): fc.Arbitrary<unknown> => {
    const t = f.type;
    const nullable = inRange(f.nullableVersions, v);
    let base: fc.Arbitrary<unknown>;
    if (isArray(t)) {
      const e = elemType(t);
      const elem = structs.has(e) ? struct(e, depth + 1) : primitive(e, flexible);
      base = fc.array(elem, { maxLength: depth > 2 ? 0 : maxLen });
    } else if (structs.has(t)) base = struct(t, depth + 1);
    else base = primitive(t, flexible);
    return nullable ? fc.option(base, { nil: null, freq: 4 }) : base;
  };

  const struct = (name: string, depth: number): fc.Arbitrary<Record<string, unknown>> => {
    const key = `${name}@${depth}`;
    const cached = memo.get(key);
    if (cached) return cached;
    const fields = structs.get(name) ?? (name === schema.name ? schema.fields : undefined);
    if (!fields) throw new Error(`${schema.name}: unknown struct ${name}`);
    const arb = fieldsArb(fields, depth);
    memo.set(key, arb);
    return arb;
  };

  const fieldsArb = (fields: FieldJson[], depth: number) => {
    const rec: Record<string, fc.Arbitrary<unknown>> = {};
    const optional: string[] = [];
    for (const f of fields) {
      if (!present(f, v, flexible)) continue;
      rec[camel(f.name)] = valueOf(f, depth);
      // A tagged struct may be absent altogether.
      if (f.tag !== undefined && !isArray(f.type) && structs.has(f.type)) optional.push(camel(f.name));
    }
    const required = Object.keys(rec).filter((k) => !optional.includes(k));
    return fc.record(rec, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
  };

  return fieldsArb(schema.fields, 0);
}

/**
 * Asserts that `decoded` holds every field of `input` that is on the wire in version v. Tagged
 * fields equal to their default may come back as the default rather than as given. jest's expect
 * runs only where a cheap strict comparison finds a difference (it then fails, naming the field):
 * one expect per leaf field was most of the codec tests' CPU (thousands per message).
 */
export function expectFieldsEqual(
  schema: SchemaJson,
  v: number,
  input: Record<string, unknown>,
  decoded: Record<string, unknown>,
): void {
  const structs = structFields(schema);
  const flexible = inRange(schema.flexibleVersions, v);
  const walk = (fields: FieldJson[], a: Record<string, unknown>, b: Record<string, unknown>, at: string) => {
    for (const f of fields) {
      if (!present(f, v, flexible)) continue;
      const k = camel(f.name);
      if (!(k in a)) continue;
      const x = a[k];
      const y = b[k];
      const where = `${at}.${k}`;
      const e = elemType(f.type);
      if (x !== null && structs.has(e)) {
        if (isArray(f.type)) {
          const xs = x as Record<string, unknown>[];
          const ys = y as Record<string, unknown>[];
          if (ys?.length !== xs.length) expect({ where, length: ys?.length }).toEqual({ where, length: xs.length });
          xs.forEach((xi, i) => walk(structs.get(e)!, xi, ys[i]!, `${where}[${i}]`));
        } else walk(structs.get(e)!, x as Record<string, unknown>, y as Record<string, unknown>, where);
      } else if (Buffer.isBuffer(x)) {
        const hex = Buffer.from(y as Buffer).toString('hex');
        if (hex !== x.toString('hex')) expect({ where, hex }).toEqual({ where, hex: x.toString('hex') });
      } else if (isArray(f.type) && Array.isArray(x) && f.tag !== undefined && x.length === 0) {
        if (!(y === null || (Array.isArray(y) && y.length === 0)))
          expect({ where, value: y === null ? [] : y }).toEqual({ where, value: [] });
      } else if (!isDeepStrictEqual(y, x)) {
        expect({ where, value: y }).toEqual({ where, value: x });
      }
    }
  };
  walk(schema.fields, input, decoded, schema.name);
}
