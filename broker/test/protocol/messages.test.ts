import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { DecodeError } from '../../src/protocol/errors';
import * as messages from '../../src/protocol/messages';
import { SCHEMAS } from '../../src/protocol/messages/schemas';
import { Reader } from '../../src/protocol/reader';
import { Writer } from '../../src/protocol/writer';
import { expectFieldsEqual, messageArbitrary, SchemaJson, versionsOf } from './schema-arbitrary';

type Decode = (r: Reader, v: number) => Record<string, unknown>;
type Encode = (w: Writer, v: number, body: Record<string, unknown>) => void;
const codecs = messages as unknown as Record<string, Decode | Encode>;
const schemas = SCHEMAS as SchemaJson[];

const cases = schemas.flatMap((s) => versionsOf(s).map((v) => [s.name, v, s] as const));

function encode(name: string, v: number, body: Record<string, unknown>): Buffer {
  const w = new Writer();
  (codecs[`encode${name}`] as Encode)(w, v, body);
  return w.toBuffer();
}

describe('generated codec', () => {
  it('covers every API key in the specs with request and response codecs for all versions', () => {
    const keys = new Set(schemas.filter((s) => s.apiKey !== undefined).map((s) => s.apiKey));
    expect(messages.API_SPECS.map((a) => a.apiKey).sort((a, b) => a - b)).toEqual([...keys].sort((a, b) => a! - b!));
    for (const s of schemas) {
      expect(typeof codecs[`decode${s.name}`]).toBe('function');
      expect(typeof codecs[`encode${s.name}`]).toBe('function');
    }
  });

  it("the registry loads an API's codec module on first use only, and its codecs are the module's", () => {
    // A fresh process: jest's module registry would hide what Node itself loads.
    const script = `
      const loaded = () => Object.keys(require.cache).filter((k) => /protocol[\\/]messages[\\/]/.test(k)).map((k) => k.replace(/.*[\\/]/, ''));
      const { API_SPEC_BY_KEY } = require('./src/protocol/messages/registry');
      const before = loaded();
      const { Writer } = require('./src/protocol/writer');
      const w = new Writer();
      API_SPEC_BY_KEY.get(18).encodeResponse(w, 3, { errorCode: 0, apiKeys: [], throttleTimeMs: 0 });
      console.log(JSON.stringify({ before, after: loaded(), bytes: w.toBuffer().length }));`;
    const out = execFileSync(process.execPath, ['-r', require.resolve('tsx/cjs'), '-e', script], {
      cwd: path.resolve(__dirname, '../..'),
      encoding: 'utf8',
    });
    const { before, after, bytes } = JSON.parse(out) as { before: string[]; after: string[]; bytes: number };
    expect(before).toEqual(['registry.ts']);
    expect(after.sort()).toEqual(['api-versions.ts', 'registry.ts']);
    const w = new Writer();
    messages.encodeApiVersionsResponse(w, 3, { errorCode: 0, apiKeys: [], throttleTimeMs: 0 });
    expect(bytes).toBe(w.toBuffer().length);
  });

  it('rejects versions outside validVersions', () => {
    expect(() =>
      messages.encodeHeartbeatRequest(new Writer(), 5, { groupId: 'g', generationId: 1, memberId: 'm' }),
    ).toThrow(/no version 5/);
  });

  describe.each(cases)('%s v%i', (name, v, schema) => {
    it('round-trips random values: decode(encode(x)) has x, and re-encodes to the same bytes', () => {
      fc.assert(
        fc.property(messageArbitrary(schema, v), (input) => {
          const bytes = encode(name, v, input);
          const r = new Reader(bytes);
          const decoded = (codecs[`decode${name}`] as Decode)(r, v);
          expect(r.remaining).toBe(0);
          expectFieldsEqual(schema, v, input, decoded);
          expect(encode(name, v, decoded).equals(bytes)).toBe(true);
        }),
        { numRuns: 25 },
      );
    });

    it('fails on random and mutated bytes only with DecodeError, never allocating past the input', () => {
      const valid = fc.sample(messageArbitrary(schema, v), { numRuns: 3, seed: 42 }).map((x) => encode(name, v, x));
      const mutated = fc
        .tuple(
          fc.constantFrom(...valid),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          fc.nat(),
        )
        .map(([b, flips, cut]) => {
          const c = Buffer.from(b);
          for (const [i, x] of flips) if (c.length) c[i % c.length] = x;
          return c.subarray(0, c.length ? cut % (c.length + 1) : 0);
        });
      const random = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
      fc.assert(
        fc.property(fc.oneof(mutated, random), (bytes) => {
          try {
            const decoded = (codecs[`decode${name}`] as Decode)(new Reader(bytes), v);
            expect(countAllocated(decoded)).toBeLessThanOrEqual(bytes.length * 2 + 64);
          } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
          }
        }),
        { numRuns: 40 },
      );
    });
  });
});

/** Array elements plus string characters in a decoded value: bounded by the input, since lengths are checked. */
function countAllocated(x: unknown): number {
  if (typeof x === 'string') return x.length;
  if (Array.isArray(x)) return x.length + x.reduce((n: number, e) => n + countAllocated(e), 0);
  if (x && typeof x === 'object' && !Buffer.isBuffer(x))
    return Object.values(x).reduce((n: number, e) => n + countAllocated(e), 0);
  return 0;
}
