// Large responses are encoded a slice of their main array at a time, yielding to the event loop
// between slices (issue 29: encoding a 2.2 MB CreateTopics answer for 2,000 topics held the loop
// 150-220 ms). The whole response is still written at once and in request order: the connection
// queues it like any other answer, it is only finished later.
//
// How: the response is encoded once with the array empty (the bytes around it), then once per
// slice with the array holding that slice (codec-runtime.ts's traceArray says where the elements
// landed), and the pieces are joined under the array's real length. Other fields are encoded with
// each slice and dropped; they are small next to the array.
import { ApiKey } from '../protocol/api-keys';
import { type ArraySpan, takeArraySpan, traceArray } from '../protocol/codec-runtime';
import { EncodeError } from '../protocol/errors';
import { SliceClock } from './yield-slices';

/** The top-level array field that grows with the request, per API (those that can reach megabytes). */
const SLICED_FIELDS: ReadonlyMap<number, string> = new Map([
  [ApiKey.CreateTopics, 'topics'],
  [ApiKey.DeleteTopics, 'responses'],
  [ApiKey.Metadata, 'topics'],
  [ApiKey.DescribeConfigs, 'results'],
  [ApiKey.CreatePartitions, 'results'],
  [ApiKey.DescribeTopicPartitions, 'topics'],
  [ApiKey.ListOffsets, 'topics'],
]);

/** Arrays at least this long are encoded in slices; shorter ones take well under a millisecond. */
export const SLICED_MIN_ELEMENTS = 256;
/**
 * Elements encoded between two looks at the clock: a CreateTopics result holds ~30 configs, and 64
 * of them took 20-35 ms of CPU on a loaded 2-vCPU machine (issue 29), 16 a quarter of that.
 */
export const ELEMENTS_PER_SLICE = 16;

/** The field to encode in slices, or undefined to encode `body` at once. */
export function slicedField(apiKey: number, body: unknown): string | undefined {
  const field = SLICED_FIELDS.get(apiKey);
  if (field === undefined) return undefined;
  const array = (body as Record<string, unknown>)[field];
  return Array.isArray(array) && array.length >= SLICED_MIN_ELEMENTS ? field : undefined;
}

/** Encodes a whole response frame (size, header, body) as the connection does. */
export type EncodeFrame = (body: unknown) => Buffer[];

/**
 * The frame `encode(body)` gives, built slice by slice of `body[field]`, yielding to the event
 * loop after `clock`'s slice of work.
 */
export async function encodeInSlices(
  encode: EncodeFrame,
  body: Record<string, unknown>,
  field: string,
  clock = new SliceClock(),
): Promise<Buffer[]> {
  const all = body[field] as unknown[];
  const empty = traced(encode, body, field, []);
  if (!empty.span) return encode(body); // this version does not write the field at the top
  const parts: Buffer[] = [empty.bytes.subarray(0, empty.span.start)];
  // The length prefix as writeArray writes it: int32, or a compact uvarint of n + 1 (one byte for 0).
  const flexible = empty.span.elemsStart - empty.span.start === 1;
  parts.push(flexible ? uvarint(all.length + 1) : int32(all.length));
  for (let at = 0; at < all.length; at += ELEMENTS_PER_SLICE) {
    await clock.maybeYield();
    const slice = traced(encode, body, field, all.slice(at, at + ELEMENTS_PER_SLICE));
    if (!slice.span) throw new EncodeError(`the ${field} array went unwritten in a slice of the response`);
    parts.push(slice.bytes.subarray(slice.span.elemsStart, slice.span.end));
  }
  parts.push(empty.bytes.subarray(empty.span.end));
  const size = parts.reduce((n, p) => n + p.length, 0);
  const head = Buffer.from(parts[0]!); // a copy: the size is patched in
  head.writeInt32BE(size - 4, 0);
  parts[0] = head;
  return parts;
}

function traced(
  encode: EncodeFrame,
  body: Record<string, unknown>,
  field: string,
  elements: unknown[],
): { bytes: Buffer; span: ArraySpan | undefined } {
  traceArray(elements);
  let chunks: Buffer[];
  let span: ArraySpan | undefined;
  try {
    chunks = encode({ ...body, [field]: elements });
  } finally {
    span = takeArraySpan();
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), span };
}

function int32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n);
  return b;
}

function uvarint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
