// Generates the codec of one message (request, response, header or data schema): for each struct,
// its interface, default, reader and writer, then the message's decode/encode entry points. The
// per-field expressions are protocol-field-code.ts's.
import { camel, cond, intersect, isEmpty, parseRange } from './protocol-spec';
import { FieldCode, isArray, PRIMITIVES } from './protocol-field-code';
import type { StructDef } from './protocol-field-code';

/** Generates code for one message (request, response, header or data schema). */
export class MessageGen extends FieldCode {
  readonly out: string[] = [];

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
