// Hostile and careless request frames for the socket fuzz, drawn by fast-check from a seed: random
// bytes, requests of every API and version the codec knows (from the Kafka JSON specs, via the
// schema arbitraries of the codec tests) sent intact or with mutated bytes, cut short, with wrong
// sizes, huge or negative array and string lengths, varints that never end, and Produce requests
// whose record batches are mutated behind a correct CRC (so the batch decoders see them), carry
// garbage under a compression codec, or are decompression bombs.
// Case i of a seed is always the same bytes: cases come in chunks of CHUNK drawn with a seed
// derived from (seed, chunk), so one case can be regenerated without the ones before it.
import fc from 'fast-check';
import * as zlib from 'node:zlib';
import { SCHEMAS } from '../../src/protocol/messages/schemas';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages/registry';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import { crc32c } from '../../src/protocol/crc32c';
import { CompressionType } from '../../src/protocol/compression';
import { ATTRIBUTES, BATCH_LENGTH, CRC, RECORDS_COUNT, encodeRecordBatch } from '../../src/protocol/record-batch';
import { messageArbitrary, SchemaJson, versionsOf } from '../../test/protocol/schema-arbitrary';

export const CHUNK = 500;

export interface FuzzCase {
  /** Position in the run: the correlation id of the (first) request, where the header is intact. */
  index: number;
  /** What the case is, e.g. "Produce v9 int32 at 31 = -1". */
  kind: string;
  /** Bytes written to the socket as they are (size prefixes included). */
  bytes: Buffer;
}

type Mutation =
  | { op: 'none' }
  | { op: 'flip'; at: { pos: number; byte: number }[] }
  | { op: 'truncate'; pos: number }
  | { op: 'int32'; pos: number; value: number }
  | { op: 'int16'; pos: number; value: number }
  | { op: 'endless-varint'; pos: number; len: number }
  | { op: 'append'; extra: Uint8Array }
  | { op: 'size-prefix'; delta: number };

const REQUEST_SCHEMAS = (SCHEMAS as SchemaJson[]).filter(
  (s) => s.type === 'request' && s.apiKey !== undefined && API_SPEC_BY_KEY.has(s.apiKey),
);

/** Every (request schema, version) pair the generated codec can encode. */
const API_VERSIONS: [SchemaJson, number][] = REQUEST_SCHEMAS.flatMap((s) =>
  versionsOf(s).map((v) => [s, v] as [SchemaJson, number]),
);

const bodyArbitraries = new Map<string, fc.Arbitrary<Record<string, unknown>>>();
const bodyArbitrary = (s: SchemaJson, v: number) => {
  const key = `${s.apiKey}:${v}`;
  let arb = bodyArbitraries.get(key);
  if (!arb) bodyArbitraries.set(key, (arb = messageArbitrary(s, v)));
  return arb;
};

/** A request frame: size prefix, header (clientId "fuzz"), body. */
export const encodeFuzzFrame = (apiKey: number, apiVersion: number, correlationId: number, body: unknown): Buffer =>
  encodeRequestFrame(apiKey, apiVersion, correlationId, 'fuzz', body);

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ op: 'none' as const }) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.record({ pos: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 4 })
      .map((at) => ({ op: 'flip' as const, at })),
  },
  { weight: 2, arbitrary: fc.nat().map((pos) => ({ op: 'truncate' as const, pos })) },
  {
    weight: 3,
    arbitrary: fc
      .record({ pos: fc.nat(), value: fc.constantFrom(0x7fffffff, -1, -2, 0x10000000, -0x80000000, 1_000_000) })
      .map((m) => ({ op: 'int32' as const, ...m })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ pos: fc.nat(), value: fc.constantFrom(0x7fff, -1, -2, 0x4000) })
      .map((m) => ({ op: 'int16' as const, ...m })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ pos: fc.nat(), len: fc.integer({ min: 5, max: 16 }) })
      .map((m) => ({ op: 'endless-varint' as const, ...m })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((extra) => ({ op: 'append' as const, extra })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: -8, max: 8 })
      .filter((d) => d !== 0)
      .map((delta) => ({ op: 'size-prefix' as const, delta })),
  },
);

/** Applies a mutation to a framed request (the size prefix follows the body unless it is the target). */
function mutate(frame: Buffer, m: Mutation): { bytes: Buffer; what: string } {
  const body = Buffer.from(frame.subarray(4));
  const framed = (b: Buffer) => {
    const out = Buffer.allocUnsafe(b.length + 4);
    out.writeInt32BE(b.length, 0);
    b.copy(out, 4);
    return out;
  };
  const at = (pos: number, width = 1) => (body.length <= width ? 0 : pos % (body.length - width + 1));
  switch (m.op) {
    case 'none':
      return { bytes: frame, what: 'intact' };
    case 'flip':
      for (const f of m.at) if (body.length > 0) body[at(f.pos)] = f.byte;
      return { bytes: framed(body), what: `bytes set ${m.at.map((f) => `${at(f.pos)}=${f.byte}`).join(',')}` };
    case 'truncate': {
      const len = body.length === 0 ? 0 : m.pos % body.length;
      return { bytes: framed(body.subarray(0, len)), what: `cut to ${len} bytes` };
    }
    case 'int32':
      if (body.length < 4) return { bytes: framed(body), what: 'too short for an int32' };
      body.writeInt32BE(m.value, at(m.pos, 4));
      return { bytes: framed(body), what: `int32 at ${at(m.pos, 4)} = ${m.value}` };
    case 'int16':
      if (body.length < 2) return { bytes: framed(body), what: 'too short for an int16' };
      body.writeInt16BE(m.value, at(m.pos, 2));
      return { bytes: framed(body), what: `int16 at ${at(m.pos, 2)} = ${m.value}` };
    case 'endless-varint': {
      const pos = body.length === 0 ? 0 : m.pos % body.length;
      return {
        bytes: framed(Buffer.concat([body.subarray(0, pos), Buffer.alloc(m.len, 0xff), body.subarray(pos)])),
        what: `${m.len} varint continuation bytes at ${pos}`,
      };
    }
    case 'append':
      return { bytes: framed(Buffer.concat([body, m.extra])), what: `${m.extra.length} bytes appended` };
    case 'size-prefix': {
      const out = framed(body);
      out.writeInt32BE(body.length + m.delta, 0);
      return { bytes: out, what: `size prefix ${m.delta > 0 ? '+' : ''}${m.delta}` };
    }
  }
}

/** A request of one of these (schema, version) pairs, with random field values, then a mutation. */
const requestCaseArb = (pairs: [SchemaJson, number][]) =>
  fc
    .constantFrom(...pairs)
    .chain(([schema, v]) => fc.tuple(fc.constant(schema), fc.constant(v), bodyArbitrary(schema, v), mutationArb));

// Record batches for Produce: a real batch (maybe compressed), then trouble under a correct CRC.
type BatchTrouble =
  | { op: 'none' }
  | { op: 'flip'; pos: number; byte: number }
  | { op: 'garbage-under-codec'; codec: number; garbage: Uint8Array }
  | { op: 'records-count'; count: number }
  | { op: 'batch-length'; delta: number }
  | { op: 'gzip-bomb' };

const batchTroubleArb: fc.Arbitrary<BatchTrouble> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ op: 'none' as const }) },
  {
    weight: 4,
    arbitrary: fc
      .record({ pos: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) })
      .map((m) => ({ op: 'flip' as const, ...m })),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({ codec: fc.integer({ min: 1, max: 7 }), garbage: fc.uint8Array({ maxLength: 64 }) })
      .map((m) => ({ op: 'garbage-under-codec' as const, ...m })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(0x7fffffff, -1, 0, 1_000_000, 2)
      .map((count) => ({ op: 'records-count' as const, count })),
  },
  { weight: 2, arbitrary: fc.integer({ min: -20, max: 20 }).map((delta) => ({ op: 'batch-length' as const, delta })) },
  { weight: 1, arbitrary: fc.constant({ op: 'gzip-bomb' as const }) },
);

let gzipBomb: Buffer | undefined;
/** 80 MiB of zeros gzipped (about 80 KB): more than the broker's decompression limit. */
function gzipBombBody(): Buffer {
  return (gzipBomb ??= zlib.gzipSync(Buffer.alloc(80 * 1024 * 1024), { level: 9 }));
}

const reCrc = (batch: Buffer) => batch.writeUInt32BE(crc32c(batch, ATTRIBUTES), CRC);

const produceCaseArb = fc.record({
  version: fc.integer({ min: 3, max: 11 }),
  acks: fc.constantFrom(-1, 1, 0),
  codec: fc.constantFrom(
    CompressionType.None,
    CompressionType.Gzip,
    CompressionType.Snappy,
    CompressionType.Lz4,
    CompressionType.Zstd,
  ),
  values: fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 6 }),
  topic: fc.constantFrom('fuzz', 'fuzz-2', '', '__consumer_offsets', 'a'.repeat(250)),
  partition: fc.constantFrom(0, 0, 1, -1, 0x7fffffff),
  trouble: batchTroubleArb,
  frameMutation: fc.oneof(
    { weight: 4, arbitrary: fc.constant({ op: 'none' as const }) },
    { weight: 1, arbitrary: mutationArb },
  ),
});

type ProducePlan = typeof produceCaseArb extends fc.Arbitrary<infer T> ? T : never;

function produceCase(index: number, c: ProducePlan): { bytes: Buffer; kind: string } {
  let batch = encodeRecordBatch({
    records: c.values.map((v) => ({ value: Buffer.from(v) })),
    compression: c.codec as CompressionType,
  });
  let trouble: string = c.trouble.op;
  switch (c.trouble.op) {
    case 'none':
      break;
    case 'flip': {
      const pos = c.trouble.pos % batch.length;
      batch[pos] = c.trouble.byte;
      trouble = `batch byte ${pos}=${c.trouble.byte}`;
      if (pos >= ATTRIBUTES) reCrc(batch);
      break;
    }
    case 'garbage-under-codec': {
      const g = Buffer.from(c.trouble.garbage);
      const head = Buffer.from(batch.subarray(0, 61));
      batch = Buffer.concat([head, g]);
      batch.writeInt32BE(batch.length - 12, BATCH_LENGTH);
      batch.writeInt16BE((batch.readInt16BE(ATTRIBUTES) & ~7) | c.trouble.codec, ATTRIBUTES);
      reCrc(batch);
      trouble = `${g.length} garbage bytes under codec ${c.trouble.codec}`;
      break;
    }
    case 'records-count':
      batch.writeInt32BE(c.trouble.count, RECORDS_COUNT);
      reCrc(batch);
      trouble = `recordsCount ${c.trouble.count}`;
      break;
    case 'batch-length':
      batch.writeInt32BE(batch.readInt32BE(BATCH_LENGTH) + c.trouble.delta, BATCH_LENGTH);
      trouble = `batchLength ${c.trouble.delta > 0 ? '+' : ''}${c.trouble.delta}`;
      break;
    case 'gzip-bomb': {
      const head = Buffer.from(batch.subarray(0, 61));
      batch = Buffer.concat([head, gzipBombBody()]);
      batch.writeInt32BE(batch.length - 12, BATCH_LENGTH);
      batch.writeInt16BE((batch.readInt16BE(ATTRIBUTES) & ~7) | CompressionType.Gzip, ATTRIBUTES);
      batch.writeInt32BE(1, RECORDS_COUNT);
      reCrc(batch);
      trouble = 'gzip bomb of 80 MiB';
      break;
    }
  }
  const frame = encodeFuzzFrame(0, c.version, index, {
    transactionalId: null,
    acks: c.acks,
    timeoutMs: 1000,
    topicData: [{ name: c.topic, partitionData: [{ index: c.partition, records: batch }] }],
  });
  const m = mutate(frame, c.frameMutation);
  return {
    bytes: m.bytes,
    kind: `Produce v${c.version} acks ${c.acks} codec ${c.codec} to "${c.topic.slice(0, 20)}"/${c.partition}: ${trouble}; frame ${m.what}`,
  };
}

type Plan =
  | { type: 'random-bytes'; bytes: Uint8Array }
  | { type: 'framed-random'; bytes: Uint8Array; sizeDelta: number }
  | { type: 'request'; req: [SchemaJson, number, Record<string, unknown>, Mutation] }
  | { type: 'produce'; produce: ProducePlan }
  | { type: 'pipelined'; reqs: [SchemaJson, number, Record<string, unknown>, Mutation][] };

/** Version ranges per API key, as the broker's ApiVersions answer gives them. */
export type ApiRanges = ReadonlyMap<number, { min: number; max: number }>;

function planArbitrary(supported: ApiRanges): fc.Arbitrary<Plan> {
  // Half the requests go to APIs and versions the broker serves, so the handlers (not only the
  // header check) meet the random values; the rest cover every API and version in the specs.
  const served = API_VERSIONS.filter(([s, v]) => {
    const r = supported.get(s.apiKey!);
    return r !== undefined && v >= r.min && v <= r.max;
  });
  const anyRequest = requestCaseArb(API_VERSIONS);
  const servedRequest = served.length > 0 ? requestCaseArb(served) : anyRequest;
  return fc.oneof(
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ minLength: 1, maxLength: 200 })
        .map((bytes) => ({ type: 'random-bytes' as const, bytes })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ bytes: fc.uint8Array({ maxLength: 200 }), sizeDelta: fc.constantFrom(0, 0, 0, 1, -1) })
        .map((p) => ({ type: 'framed-random' as const, ...p })),
    },
    { weight: 5, arbitrary: anyRequest.map((req) => ({ type: 'request' as const, req })) },
    { weight: 5, arbitrary: servedRequest.map((req) => ({ type: 'request' as const, req })) },
    { weight: 4, arbitrary: produceCaseArb.map((produce) => ({ type: 'produce' as const, produce })) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof(anyRequest, servedRequest), { minLength: 2, maxLength: 4 })
        .map((reqs) => ({ type: 'pipelined' as const, reqs })),
    },
  );
}

function requestCase(
  index: number,
  [schema, v, body, m]: [SchemaJson, number, Record<string, unknown>, Mutation],
): { bytes: Buffer; kind: string } {
  const frame = encodeFuzzFrame(schema.apiKey!, v, index, body);
  const out = mutate(frame, m);
  return { bytes: out.bytes, kind: `${schema.name.replace(/Request$/, '')} v${v} ${out.what}` };
}

function build(index: number, plan: Plan): FuzzCase {
  switch (plan.type) {
    case 'random-bytes':
      return { index, kind: `${plan.bytes.length} random bytes`, bytes: Buffer.from(plan.bytes) };
    case 'framed-random': {
      const bytes = Buffer.allocUnsafe(plan.bytes.length + 4);
      bytes.writeInt32BE(plan.bytes.length + plan.sizeDelta, 0);
      Buffer.from(plan.bytes).copy(bytes, 4);
      return {
        index,
        kind: `frame of ${plan.bytes.length} random bytes, size prefix ${plan.sizeDelta >= 0 ? '+' : ''}${plan.sizeDelta}`,
        bytes,
      };
    }
    case 'request':
      return { index, ...requestCase(index, plan.req) };
    case 'produce':
      return { index, ...produceCase(index, plan.produce) };
    case 'pipelined': {
      const parts = plan.reqs.map((r) => requestCase(index, r));
      return {
        index,
        kind: `pipelined: ${parts.map((p) => p.kind).join(' | ')}`,
        bytes: Buffer.concat(parts.map((p) => p.bytes)),
      };
    }
  }
}

/** The seed of chunk `chunk` of a run seeded `seed` (any 32-bit mix works; this one spreads neighbours). */
const chunkSeed = (seed: number, chunk: number) => (Math.imul(seed ^ chunk, 0x9e3779b1) ^ (chunk * 0x85ebca6b)) | 0;

export interface FuzzGenerator {
  /** The cases of one chunk: indices chunk*CHUNK .. chunk*CHUNK+CHUNK-1. */
  chunk(chunk: number): FuzzCase[];
  /** One case, regenerated from its index (for replaying a failure). */
  case(index: number): FuzzCase;
}

/** The cases of a run seeded `seed` against a broker serving `supported`. */
export function fuzzGenerator(seed: number, supported: ApiRanges): FuzzGenerator {
  const planArb = planArbitrary(supported);
  const chunk = (c: number): FuzzCase[] =>
    fc.sample(planArb, { seed: chunkSeed(seed, c), numRuns: CHUNK }).map((p, i) => {
      const index = c * CHUNK + i;
      try {
        return build(index, p);
      } catch (err) {
        // A body the codec refuses to encode (a value out of its range): its description as bytes.
        return {
          index,
          kind: `unencodable (${(err as Error).message.slice(0, 60)}): sent as bytes`,
          bytes: Buffer.from(JSON.stringify(p, (_k, x) => (typeof x === 'bigint' ? String(x) : x)).slice(0, 200)),
        };
      }
    });
  return { chunk, case: (index) => chunk(Math.floor(index / CHUNK))[index % CHUNK]! };
}
