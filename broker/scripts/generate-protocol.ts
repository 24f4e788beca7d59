/**
 * Generates TypeScript codecs for Kafka's protocol from Apache Kafka's JSON message definitions
 * (clients/src/main/resources/common/message/*.json).
 *
 *   npm run -w broker generate:protocol                  (specs from broker/protocol-specs/messages)
 *   npm run -w broker generate:protocol -- <spec-dir> [out-dir]
 *
 * The spec folder defaults to the copy in the repository (protocol-specs/messages; its README says
 * which Kafka commit it is and how to update it); KAFKA_SPEC_DIR or the first argument override it.
 * One file per API (request + response), one per header and per `data` schema, plus index.ts
 * (everything), registry.ts (API facts, codecs loaded on first use; protocol-registry.ts) and, beside
 * the messages folder, api-keys.ts (ApiKey name -> number; protocol-api-keys.ts).
 * Output is deterministic: rerunning on the same specs changes nothing.
 * Schema conventions: protocol-specs/README.md.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  camel,
  cond,
  FieldSpec,
  intersect,
  isEmpty,
  kebab,
  loadSpec,
  MessageSpec,
  parseRange,
  Range,
  REPO_SPEC_DIR,
} from './protocol-spec';
import { apiKeysSource } from './protocol-api-keys';
import { registryEntry, registrySource } from './protocol-registry';

export { parseRange, REPO_SPEC_DIR };

const PRIMITIVES: Record<string, string> = {
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

interface StructDef {
  specName: string; // name in the spec
  tsName: string; // exported interface name
  fields: FieldSpec[];
}

/** Generates code for one message (request, response, header or data schema). */
class MessageGen {
  readonly valid: Range;
  readonly flexible: Range;
  readonly structs = new Map<string, StructDef>();
  readonly out: string[] = [];

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

  private collect(name: string, fields: FieldSpec[]): void {
    if (this.structs.has(name)) throw new Error(`${this.spec.name}: struct ${name} defined twice`);
    // MetadataResponseBroker, not MetadataResponseMetadataResponseBroker.
    const tsName = name.startsWith(this.prefix) ? name : this.prefix + name;
    if ([...this.structs.values()].some((s) => s.tsName === tsName))
      throw new Error(`${this.spec.name}: two structs named ${tsName}`);
    this.structs.set(name, { specName: name, tsName, fields });
    this.collectNested(fields);
  }

  private collectNested(fields: FieldSpec[]): void {
    for (const f of fields) if (f.fields) this.collect(elemType(f.type), f.fields);
  }

  private struct(name: string): StructDef {
    const s = this.structs.get(name);
    if (!s) throw new Error(`${this.spec.name}: unknown type ${name}`);
    return s;
  }

  private tsType(f: FieldSpec): string {
    const t = f.type;
    const base = isArray(t) ? `${this.elemTs(elemType(t))}[]` : this.elemTs(t);
    return isEmpty(parseRange(f.nullableVersions)) ? base : `${base} | null`;
  }

  private elemTs(t: string): string {
    // A response's records may be stored batches not yet joined (src/protocol/records.ts).
    if (t === 'records' && this.spec.type === 'response') return 'Records';
    return PRIMITIVES[t] ?? this.struct(t).tsName;
  }

  private isTagged(f: FieldSpec): boolean {
    return f.tag !== undefined;
  }

  /** Optional in the TS type: tagged, defaulted, or not on the wire in every valid version. */
  private isOptional(f: FieldSpec): boolean {
    if (this.isTagged(f) || f.default !== undefined) return true;
    const fv = intersect(parseRange(f.versions), this.valid);
    return fv.min !== this.valid.min || fv.max !== this.valid.max;
  }

  /** The default value of a field as a TS expression (README: "default"). */
  private defaultExpr(f: FieldSpec): string {
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
  private presentExpr(f: FieldSpec, val: string): string {
    const t = f.type;
    const d = this.defaultExpr(f);
    if (isArray(t)) return d === 'null' ? `${val} != null` : `${val} != null && ${val}.length > 0`;
    if (d === 'null' || !PRIMITIVES[t]) return `${val} != null`;
    if (t === 'bytes') return `${val} != null && ${val}.length > 0`;
    return `${val} !== undefined && ${val} !== ${d}`;
  }

  /** Expression reading one value of primitive type `t`. */
  private readPrim(t: string, flex: string, nullable: string): string {
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

  private writePrim(t: string, flex: string, nullable: string, val: string, field: string): string {
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
  private readValue(f: FieldSpec, flex: string): string {
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
  private writeValue(f: FieldSpec, flex: string, val: string): string {
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
  private fieldRange(f: FieldSpec): Range {
    return intersect(parseRange(f.versions), this.valid);
  }

  /** The flexibility expression for a non-tagged field (ClientId in the header overrides it). */
  private fieldFlex(f: FieldSpec): string {
    const r = f.flexibleVersions !== undefined ? parseRange(f.flexibleVersions) : this.flexible;
    const c = cond(r, this.fieldRange(f));
    return c === 'true' || c === 'false' ? c : 'flex';
  }

  generateStruct(s: StructDef, exported: boolean, docName?: string): void {
    const o = this.out;
    const regular = s.fields.filter((f) => !this.isTagged(f));
    const tagged = s.fields.filter((f) => this.isTagged(f)).sort((a, b) => Number(a.tag) - Number(b.tag));
    const hasFlex = !isEmpty(intersect(this.flexible, this.valid));
    const flexCond = cond(this.flexible, this.valid);
    const usesFlexVar = (code: string) => /\bflex\b/.test(code);

    // interface
    o.push(docName ? `/** ${docName} */` : '');
    o.push(`export interface ${s.tsName} {`);
    for (const f of s.fields) {
      if (f.about) o.push(`  /** ${f.about.replace(/\*\//g, '*\\/')} */`);
      o.push(`  ${camel(f.name)}${this.isOptional(f) ? '?' : ''}: ${this.tsType(f)};`);
    }
    o.push('}', '');

    // defaults
    o.push(`${exported ? 'export ' : ''}function default${s.tsName}(): ${s.tsName} {`);
    o.push('  return {');
    for (const f of s.fields) {
      if (this.isTagged(f) && !PRIMITIVES[f.type] && !isArray(f.type)) continue;
      o.push(`    ${camel(f.name)}: ${this.defaultExpr(f)},`);
    }
    o.push('  };', '}', '');

    // reader
    const body: string[] = [];
    for (const f of regular) {
      const c = cond(parseRange(f.versions), this.valid);
      if (c === 'false') continue;
      const stmt = `o.${camel(f.name)} = ${this.readValue(f, this.fieldFlex(f))};`;
      body.push(c === 'true' ? `  ${stmt}` : `  if (${c}) ${stmt}`);
    }
    if (hasFlex) {
      const cases: string[] = [];
      for (const f of tagged) {
        const c = cond(intersect(parseRange(f.taggedVersions ?? f.versions), parseRange(f.versions)), this.valid);
        if (c === 'false') continue;
        const stmt = `o.${camel(f.name)} = ${this.readValue(f, 'true')}; return true;`;
        cases.push(`      case ${Number(f.tag)}:${c === 'true' ? ` ${stmt}` : ` if (${c}) { ${stmt} } return false;`}`);
      }
      const section =
        cases.length === 0
          ? 'r.skipTaggedFields();'
          : [
              'rt.readTaggedFields(r, (tag) => {',
              '    switch (tag) {',
              ...cases,
              '      default: return false;',
              '    }',
              '  });',
            ].join('\n');
      body.push(flexCond === 'true' ? `  ${section}` : `  if (flex) ${section}`);
    }
    const readCode = body.join('\n');
    o.push(`${exported ? 'export ' : ''}function read${s.tsName}(r: Reader, v: number): ${s.tsName} {`);
    if (usesFlexVar(readCode)) o.push(`  const flex = ${flexCond};`);
    o.push(`  const o = default${s.tsName}();`);
    if (!/\bv\b/.test(readCode)) o.push('  void v;');
    o.push(readCode, '  return o;', '}', '');

    // writer
    const wbody: string[] = [];
    for (const f of regular) {
      const c = cond(parseRange(f.versions), this.valid);
      if (c === 'false') continue;
      const x = `o.${camel(f.name)}`;
      // `??` would turn an explicit null into the default, so nullable fields only replace undefined.
      const nullableAnywhere = !isEmpty(parseRange(f.nullableVersions));
      const val = !this.isOptional(f)
        ? x
        : nullableAnywhere
          ? `(${x} === undefined ? ${this.defaultExpr(f)} : ${x})`
          : `(${x} ?? ${this.defaultExpr(f)})`;
      const stmt = this.writeValue(f, this.fieldFlex(f), val);
      const term = stmt.endsWith('}') ? stmt : `${stmt};`;
      wbody.push(c === 'true' ? `  ${term}` : `  if (${c}) { ${term} }`);
    }
    if (hasFlex) {
      const lines: string[] = [];
      const live = tagged
        .map((f) => ({
          f,
          c: cond(intersect(parseRange(f.taggedVersions ?? f.versions), parseRange(f.versions)), this.valid),
        }))
        .filter((x) => x.c !== 'false');
      if (live.length === 0) lines.push('w.uvarint(0);');
      else {
        lines.push('{');
        live.forEach(({ f, c }, i) => {
          const p = this.presentExpr(f, `o.${camel(f.name)}`);
          lines.push(`    const t${i} = ${c === 'true' ? '' : `${c} && `}${p};`);
        });
        lines.push(`    w.uvarint(${live.map((_, i) => `(t${i} ? 1 : 0)`).join(' + ')});`);
        live.forEach(({ f }, i) => {
          const stmt = this.writeValue(f, 'true', `o.${camel(f.name)}!`);
          lines.push(
            `    if (t${i}) rt.writeTaggedField(w, ${Number(f.tag)}, (w) => { ${stmt.endsWith('}') ? stmt : `${stmt};`} });`,
          );
        });
        lines.push('  }');
      }
      const section = lines.join('\n');
      wbody.push(flexCond === 'true' ? `  ${section}` : `  if (flex) ${section}`);
    }
    const writeCode = wbody.join('\n');
    o.push(`${exported ? 'export ' : ''}function write${s.tsName}(w: Writer, v: number, o: ${s.tsName}): void {`);
    if (usesFlexVar(writeCode)) o.push(`  const flex = ${flexCond};`);
    if (!/\bv\b/.test(writeCode)) o.push('  void v;');
    if (!/\bo\b/.test(writeCode)) o.push('  void o;');
    o.push(writeCode, '}', '');
  }

  generate(): string {
    const top: StructDef = { specName: this.spec.name, tsName: this.spec.name, fields: this.spec.fields };
    const versions = `versions ${this.spec.validVersions}, flexible ${this.spec.flexibleVersions}`;
    this.generateStruct(top, false, `${this.spec.name}: ${versions}.`);
    for (const s of this.structs.values()) this.generateStruct(s, false);
    const n = this.spec.name;
    this.out.push(
      `/** Decodes a ${n} body of the given version. Throws DecodeError on malformed input. */`,
      `export function decode${n}(r: Reader, version: number): ${n} {`,
      `  checkVersion('${n}', version, ${this.valid.min}, ${this.valid.max});`,
      `  return read${n}(r, version);`,
      '}',
      '',
      `/** Encodes a ${n} body in the given version. */`,
      `export function encode${n}(w: Writer, version: number, body: ${n}): void {`,
      `  checkVersion('${n}', version, ${this.valid.min}, ${this.valid.max});`,
      `  write${n}(w, version, body);`,
      '}',
      '',
      `export { default${n} };`,
      '',
    );
    return this.out.join('\n');
  }
}

function isArray(t: string): boolean {
  return t.startsWith('[]');
}
function elemType(t: string): string {
  return isArray(t) ? t.slice(2) : t;
}

const HEADER = (sources: string[], code: string) =>
  `// Generated by scripts/generate-protocol.ts from ${sources.join(' and ')}. Do not edit.\n` +
  '/* eslint-disable */\n' +
  "import { Reader } from '../reader';\n" +
  (/: Records\b/.test(code) ? "import type { Records } from '../records';\n" : '') +
  "import { Writer } from '../writer';\n" +
  "import { EncodeError } from '../errors';\n" +
  "import { ZERO_UUID } from '../uuid';\n" +
  "import * as rt from '../codec-runtime';\n\n" +
  'const EMPTY_BYTES = Buffer.alloc(0);\n' +
  'void EMPTY_BYTES; void ZERO_UUID; void rt;\n\n' +
  'function checkVersion(name: string, version: number, min: number, max: number): void {\n' +
  '  if (!(version >= min && version <= max)) throw new EncodeError(`${name} has no version ${version} (valid ${min}-${max})`);\n' +
  '}\n\n';

/** Where the generated codecs live. */
export const MESSAGES_DIR = path.join(__dirname, '..', 'src', 'protocol', 'messages');

/**
 * Writes the codecs for every spec in `specDir` to `outDir` and the ApiKey map to `apiKeysFile`.
 * Returns the names of the files written to `outDir`.
 */
export function generate(specDir: string, outDir: string, apiKeysFile: string): string[] {
  const files = fs
    .readdirSync(specDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const specs = files.map((f) => ({ file: f, spec: loadSpec(path.join(specDir, f)) }));
  const apis = new Map<
    number,
    { req?: { file: string; spec: MessageSpec }; res?: { file: string; spec: MessageSpec } }
  >();
  const others: { file: string; spec: MessageSpec }[] = [];
  for (const s of specs) {
    if (s.spec.type === 'request' || s.spec.type === 'response') {
      const k = s.spec.apiKey!;
      const e = apis.get(k) ?? {};
      if (s.spec.type === 'request') e.req = s;
      else e.res = s;
      apis.set(k, e);
    } else others.push(s);
  }

  fs.mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const write = (name: string, text: string) => {
    fs.writeFileSync(path.join(outDir, name), text);
    written.push(name);
  };

  const index: string[] = [
    '// Generated by scripts/generate-protocol.ts. Do not edit.',
    "export * from './registry';",
    '',
  ];
  const registry: string[] = [];
  for (const [key, { req, res }] of [...apis.entries()].sort((a, b) => a[0] - b[0])) {
    if (!req || !res) throw new Error(`API key ${key} lacks a request or a response spec`);
    const api = req.spec.name.replace(/Request$/, '');
    const fileBase = kebab(api);
    const body =
      new MessageGen(req.spec, req.spec.name).generate() + '\n' + new MessageGen(res.spec, res.spec.name).generate();
    write(`${fileBase}.ts`, HEADER([req.file, res.file], body) + body);
    index.push(`export * from './${fileBase}';`);
    registry.push(registryEntry(key, api, fileBase, req.spec, res.spec));
  }
  for (const o of others.sort((a, b) => a.spec.name.localeCompare(b.spec.name))) {
    const fileBase = kebab(o.spec.name);
    const body = new MessageGen(o.spec, o.spec.name).generate();
    write(`${fileBase}.ts`, HEADER([o.file], body) + body);
    index.push(`export * from './${fileBase}';`);
  }
  index.push('');
  write('index.ts', index.join('\n'));
  write('registry.ts', registrySource(registry));
  fs.writeFileSync(apiKeysFile, apiKeysSource(specs.filter((s) => s.spec.type === 'request').map((s) => s.spec)));

  // The specs themselves (without docs), so tests can build values for every field of every version
  // without the spec folder (round-trip property tests).
  const strip = (fields: FieldSpec[]): unknown[] =>
    fields.map(({ about: _about, fields: sub, ...rest }) => (sub ? { ...rest, fields: strip(sub) } : rest));
  const schemas = specs
    .map(({ spec }) => ({
      name: spec.name,
      type: spec.type,
      ...(spec.apiKey !== undefined ? { apiKey: spec.apiKey } : {}),
      validVersions: spec.validVersions,
      flexibleVersions: spec.flexibleVersions,
      fields: strip(spec.fields),
      commonStructs: (spec.commonStructs ?? []).map((c) => ({ name: c.name, fields: strip(c.fields) })),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  write(
    'schemas.ts',
    '// Generated by scripts/generate-protocol.ts. Do not edit.\n' +
      '// The message specs without their docs: used by tests to build values for every field and version.\n' +
      `export const SCHEMAS: readonly unknown[] = ${JSON.stringify(schemas)};\n`,
  );
  return written;
}

if (require.main === module) {
  const specDir = process.argv[2] ?? process.env.KAFKA_SPEC_DIR ?? REPO_SPEC_DIR;
  const outDir = process.argv[3] ?? MESSAGES_DIR;
  const apiKeysFile = path.join(outDir, '..', 'api-keys.ts');
  if (!fs.existsSync(specDir)) {
    console.error(
      `usage: generate-protocol [spec-dir] [out-dir]\n  spec dir ${JSON.stringify(specDir)} does not exist; ` +
        `expected a folder of Kafka's message JSON files, e.g. ${REPO_SPEC_DIR} (the default)`,
    );
    process.exit(2);
  }
  const written = generate(specDir, outDir, apiKeysFile);
  console.log(`wrote ${written.length} files to ${outDir} and ${apiKeysFile} from ${specDir}`);
}
