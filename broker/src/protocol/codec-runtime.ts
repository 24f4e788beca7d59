// Small helpers shared by the generated message codecs (src/protocol/messages/*). Hand-written.
import { DecodeError, EncodeError } from './errors';
import { Reader } from './reader';
import { Writer } from './writer';

/** Reads an array that may be null in this version (`nullable` false turns null into an error). */
export function readNullableArray<T>(
  r: Reader,
  flex: boolean,
  nullable: boolean,
  field: string,
  elem: (r: Reader) => T,
): T[] | null {
  const n = flex ? r.compactArrayLength() : r.arrayLength();
  if (n < 0) {
    if (!nullable) throw new DecodeError(`non-nullable array ${field} was null`);
    return null;
  }
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(elem(r));
  return out;
}

export function readArray<T>(r: Reader, flex: boolean, field: string, elem: (r: Reader) => T): T[] {
  return readNullableArray(r, flex, false, field, elem)!;
}

/**
 * Where writeArray wrote the array passed to `traceArray`, in the writer's bytes: its length prefix
 * at `start`, its elements from `elemsStart` to `end`. The sliced response encoder (server/
 * sliced-encoding.ts) uses it to encode a large array's elements a slice at a time.
 */
export interface ArraySpan {
  start: number;
  elemsStart: number;
  end: number;
}
let tracedArray: readonly unknown[] | undefined;
let tracedSpan: ArraySpan | undefined;

/** Records where the next encoding writes `a` (one array at a time; encoding is synchronous). */
export function traceArray(a: readonly unknown[]): void {
  tracedArray = a;
  tracedSpan = undefined;
}

/** The span of the traced array, once written; clears the trace. */
export function takeArraySpan(): ArraySpan | undefined {
  const span = tracedSpan;
  tracedArray = tracedSpan = undefined;
  return span;
}

export function writeArray<T>(
  w: Writer,
  flex: boolean,
  nullable: boolean,
  field: string,
  a: readonly T[] | null | undefined,
  elem: (w: Writer, e: T) => void,
): void {
  if (a === null || a === undefined) {
    if (a === null && !nullable) throw new EncodeError(`non-nullable array ${field} is null`);
    if (a === null) {
      if (flex) w.compactArrayLength(null);
      else w.arrayLength(null);
      return;
    }
    a = [];
  }
  if (a === tracedArray) return writeTracedArray(w, flex, a, elem);
  if (flex) w.compactArrayLength(a.length);
  else w.arrayLength(a.length);
  for (const e of a) elem(w, e);
}

function writeTracedArray<T>(w: Writer, flex: boolean, a: readonly T[], elem: (w: Writer, e: T) => void): void {
  const start = w.length;
  if (flex) w.compactArrayLength(a.length);
  else w.arrayLength(a.length);
  const elemsStart = w.length;
  for (const e of a) elem(w, e);
  tracedSpan = { start, elemsStart, end: w.length };
}

/** Nullable structs carry an int8 marker: -1 null, 1 present. */
export function readNullableStruct<T>(r: Reader, elem: (r: Reader) => T): T | null {
  const marker = r.int8();
  if (marker < 0) return null;
  return elem(r);
}

export function writeNullableStruct<T>(w: Writer, s: T | null | undefined, elem: (w: Writer, s: T) => void): void {
  if (s === null || s === undefined) {
    w.int8(-1);
    return;
  }
  w.int8(1);
  elem(w, s);
}

export function nonNull<T>(v: T | null, field: string, versionDesc: number): T {
  if (v === null) throw new EncodeError(`field ${field} is null, but it is not nullable in version ${versionDesc}`);
  return v;
}

/**
 * Reads a tagged-field section. `known` reads the field for a tag it knows and returns true;
 * unknown tags are skipped. A known field must take exactly the size its header announced.
 */
export function readTaggedFields(r: Reader, known: (tag: number) => boolean): void {
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    if (size > r.remaining)
      throw new DecodeError(`tagged field ${tag} of ${size} bytes exceeds the ${r.remaining} bytes left`);
    const end = r.offset + size;
    if (!known(tag)) {
      r.skip(size);
    } else if (r.offset !== end) {
      throw new DecodeError(`tagged field ${tag} announced ${size} bytes but its value took ${r.offset - end + size}`);
    }
  }
}

/** Writes one tagged field: tag, size, then the value encoded (flexibly) by `value`. */
export function writeTaggedField(w: Writer, tag: number, value: (w: Writer) => void): void {
  const inner = new Writer(64);
  value(inner);
  const bytes = inner.toBuffer();
  w.uvarint(tag).uvarint(bytes.length).raw(bytes);
}
