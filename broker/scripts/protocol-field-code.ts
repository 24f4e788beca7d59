// The TypeScript the protocol generator writes for one field of a message spec: its type, its
// default, whether a tagged field is present, and the expressions that read and write it in a
// given version (flexible or not, nullable or not). protocol-message-gen.ts assembles them into a
// message's interface, default, reader and writer.
import { cond, FieldSpec, intersect, isEmpty, MessageSpec, parseRange, Range } from './protocol-spec';

export const PRIMITIVES: Record<string, string> = {
  bool: 'boolean',
  int8: 'number',
  int16: 'number',
  uint16: 'number',
  int32: 'number',
  uint32: 'number',
  int64: 'bigint',
  float64: 'number',
  uuid: 'string',
  string: 'string',
  bytes: 'Buffer',
  records: 'Buffer',
};

export interface StructDef {
  specName: string; // name in the spec
  tsName: string; // exported interface name
  fields: FieldSpec[];
}

/** One message's structs and the per-field code built from them (request, response, header or data schema). */
export class FieldCode {
  readonly valid: Range;
  readonly flexible: Range;
  readonly structs = new Map<string, StructDef>();

  constructor(
    readonly spec: MessageSpec,
    /** prefix for nested struct names, so request and response structs never collide in one file */
    readonly prefix: string,
  ) {
    this.valid = parseRange(spec.validVersions);
    this.flexible = parseRange(spec.flexibleVersions);
    for (const c of spec.commonStructs ?? []) this.collect(c.name, c.fields);
    this.collectNested(spec.fields);
  }

  protected collect(name: string, fields: FieldSpec[]): void {
    if (this.structs.has(name)) throw new Error(`${this.spec.name}: struct ${name} defined twice`);
    // MetadataResponseBroker, not MetadataResponseMetadataResponseBroker.
    const tsName = name.startsWith(this.prefix) ? name : this.prefix + name;
    if ([...this.structs.values()].some((s) => s.tsName === tsName))
      throw new Error(`${this.spec.name}: two structs named ${tsName}`);
    this.structs.set(name, { specName: name, tsName, fields });
    this.collectNested(fields);
  }

  protected collectNested(fields: FieldSpec[]): void {
    for (const f of fields) if (f.fields) this.collect(elemType(f.type), f.fields);
  }

  protected struct(name: string): StructDef {
    const s = this.structs.get(name);
    if (!s) throw new Error(`${this.spec.name}: unknown type ${name}`);
    return s;
  }

  protected tsType(f: FieldSpec): string {
    const t = f.type;
    const base = isArray(t) ? `${this.elemTs(elemType(t))}[]` : this.elemTs(t);
    return isEmpty(parseRange(f.nullableVersions)) ? base : `${base} | null`;
  }

  protected elemTs(t: string): string {
    // A response's records may be stored batches not yet joined (src/protocol/records.ts).
    if (t === 'records' && this.spec.type === 'response') return 'Records';
    return PRIMITIVES[t] ?? this.struct(t).tsName;
  }

  protected isTagged(f: FieldSpec): boolean {
    return f.tag !== undefined;
  }

  /** Optional in the TS type: tagged, defaulted, or not on the wire in every valid version. */
  protected isOptional(f: FieldSpec): boolean {
    if (this.isTagged(f) || f.default !== undefined) return true;
    const fv = intersect(parseRange(f.versions), this.valid);
    return fv.min !== this.valid.min || fv.max !== this.valid.max;
  }

  /** The default value of a field as a TS expression (README: "default"). */
  protected defaultExpr(f: FieldSpec): string {
    const t = f.type;
    const d = f.default;
    if (isArray(t)) return d === 'null' ? 'null' : '[]';
    if (d === 'null') return 'null';
    switch (t) {
      case 'bool':
        return String(d === true || d === 'true');
      case 'int8':
      case 'int16':
      case 'uint16':
      case 'int32':
      case 'uint32':
      case 'float64':
        return d === undefined ? '0' : String(Number(d));
      case 'int64':
        return d === undefined ? '0n' : `${BigInt(String(d))}n`;
      case 'uuid':
        return 'ZERO_UUID';
      case 'string':
        return JSON.stringify(d === undefined ? '' : String(d));
      case 'bytes':
        return 'EMPTY_BYTES';
      case 'records':
        return isEmpty(parseRange(f.nullableVersions)) ? 'EMPTY_BYTES' : 'null';
      default: {
        if (!isEmpty(parseRange(f.nullableVersions)) && d === undefined) return 'null';
        return `default${this.struct(t).tsName}()`;
      }
    }
  }

  /** Whether a tagged field's value differs from its default, so it must be written. */
  protected presentExpr(f: FieldSpec, val: string): string {
    const t = f.type;
    const d = this.defaultExpr(f);
    if (isArray(t)) return d === 'null' ? `${val} != null` : `${val} != null && ${val}.length > 0`;
    if (d === 'null' || !PRIMITIVES[t]) return `${val} != null`;
    if (t === 'bytes') return `${val} != null && ${val}.length > 0`;
    return `${val} !== undefined && ${val} !== ${d}`;
  }

  /** Expression reading one value of primitive type `t`. */
  protected readPrim(t: string, flex: string, nullable: string): string {
    const pick = (a: string, b: string, c: string) => (c === 'true' ? a : c === 'false' ? b : `(${c} ? ${a} : ${b})`);
    switch (t) {
      case 'string':
        return pick(
          pick('r.compactNullableString()', 'r.compactString()', nullable),
          pick('r.nullableString()', 'r.string()', nullable),
          flex,
        );
      case 'bytes':
      case 'records':
        return pick(
          pick('r.compactNullableBytes()', 'r.compactBytes()', nullable),
          pick('r.nullableBytes()', 'r.bytes()', nullable),
          flex,
        );
      default:
        return `r.${t}()`;
    }
  }

  protected writePrim(t: string, flex: string, nullable: string, val: string, field: string): string {
    const pick = (a: string, b: string, c: string) =>
      c === 'true' ? a : c === 'false' ? b : `if (${c}) ${a}; else ${b}`;
    const nn = `rt.nonNull(${val}, '${field}', v)`;
    switch (t) {
      case 'string':
      case 'bytes':
      case 'records': {
        const T = t === 'string' ? 'String' : 'Bytes';
        const t0 = t === 'string' ? 'string' : 'bytes';
        const compact = pick(`w.compactNullable${T}(${val})`, `w.compact${T}(${nn})`, nullable);
        const classic = pick(`w.nullable${T}(${val})`, `w.${t0}(${nn})`, nullable);
        if (flex === 'true') return compact;
        if (flex === 'false') return classic;
        return `if (${flex}) { ${compact}; } else { ${classic}; }`;
      }
      default:
        return `w.${t}(${val})`;
    }
  }

  /** Expression reading the value of field f (flexibility given as a TS expression). */
  protected readValue(f: FieldSpec, flex: string): string {
    const t = f.type;
    const nullable = cond(parseRange(f.nullableVersions), this.fieldRange(f));
    if (isArray(t)) {
      const e = elemType(t);
      const elem = PRIMITIVES[e] ? this.readPrim(e, flex, 'false') : `read${this.struct(e).tsName}(r, v)`;
      if (nullable === 'false') return `rt.readArray(r, ${flex}, '${f.name}', (r) => ${elem})`;
      return `rt.readNullableArray(r, ${flex}, ${nullable}, '${f.name}', (r) => ${elem})`;
    }
    if (PRIMITIVES[t]) return this.readPrim(t, flex, nullable);
    const s = this.struct(t).tsName;
    if (nullable === 'false') return `read${s}(r, v)`;
    if (nullable === 'true') return `rt.readNullableStruct(r, (r) => read${s}(r, v))`;
    return `(${nullable} ? rt.readNullableStruct(r, (r) => read${s}(r, v)) : read${s}(r, v))`;
  }

  /** Statement writing the value `val` of field f. */
  protected writeValue(f: FieldSpec, flex: string, val: string): string {
    const t = f.type;
    const nullable = cond(parseRange(f.nullableVersions), this.fieldRange(f));
    if (isArray(t)) {
      const e = elemType(t);
      const elem = PRIMITIVES[e]
        ? this.writePrim(e, flex, 'false', 'e', f.name)
        : `write${this.struct(e).tsName}(w, v, e)`;
      return `rt.writeArray(w, ${flex}, ${nullable}, '${f.name}', ${val}, (w, e) => { ${elem}; })`;
    }
    if (PRIMITIVES[t]) return this.writePrim(t, flex, nullable, val, f.name);
    const s = this.struct(t).tsName;
    const direct = val.endsWith('!') ? `write${s}(w, v, ${val})` : `write${s}(w, v, ${val} ?? default${s}())`;
    const withMarker = `rt.writeNullableStruct(w, ${val}, (w, s) => write${s}(w, v, s))`;
    if (nullable === 'false') return direct;
    if (nullable === 'true') return withMarker;
    return `if (${nullable}) ${withMarker}; else ${direct}`;
  }

  /** The versions in which field f is on the wire (within the message's valid versions). */
  protected fieldRange(f: FieldSpec): Range {
    return intersect(parseRange(f.versions), this.valid);
  }

  /** The flexibility expression for a non-tagged field (ClientId in the header overrides it). */
  protected fieldFlex(f: FieldSpec): string {
    const r = f.flexibleVersions !== undefined ? parseRange(f.flexibleVersions) : this.flexible;
    const c = cond(r, this.fieldRange(f));
    return c === 'true' || c === 'false' ? c : 'flex';
  }
}

export function isArray(t: string): boolean {
  return t.startsWith('[]');
}
export function elemType(t: string): string {
  return isArray(t) ? t.slice(2) : t;
}
