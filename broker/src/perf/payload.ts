// Record values and keys for the load tool. kafka-producer-perf-test sends one random A-Z payload
// over and over, which compresses to almost nothing inside a batch; here a pool of distinct random
// A-Z payloads rotates, so the codec figures are closer to real text (about 4.7 bits a byte).
import { readFileSync } from 'node:fs';
import { UsageError } from '../args';

export const PAYLOAD_POOL_SIZE = 64;

export interface Payloads {
  /** Value of record i. */
  value(i: number): Buffer;
  /** Key of record i, or null when unkeyed. */
  key(i: number): Buffer | null;
  /** Mean value size, for sizing batches. */
  readonly meanValueBytes: number;
  readonly meanKeyBytes: number;
}

/** A small deterministic PRNG (mulberry32), so runs are repeatable. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomPayloads(recordSize: number, poolSize = PAYLOAD_POOL_SIZE, seed = 42): Buffer[] {
  const rnd = prng(seed);
  return Array.from({ length: poolSize }, () => {
    const b = Buffer.allocUnsafe(recordSize);
    for (let j = 0; j < recordSize; j++) b[j] = 65 + Math.floor(rnd() * 26);
    return b;
  });
}

/** The records of a payload file, split on `delimiter` (empty records dropped, as Kafka does). */
export function payloadsFromFile(path: string, delimiter: string): Buffer[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--payload-file ${path}: ${(err as Error).message}`);
  }
  const records = text
    .split(delimiter)
    .filter((s) => s.length > 0)
    .map((s) => Buffer.from(s));
  if (records.length === 0)
    throw new UsageError(`--payload-file ${path}: no records (split on ${JSON.stringify(delimiter)})`);
  return records;
}

/** Keys "0".."K-1" (record i gets i % K), precomputed. */
export function makePayloads(values: Buffer[], keys: number): Payloads {
  const keyBufs = keys > 0 ? Array.from({ length: Math.min(keys, 1 << 20) }, (_, k) => Buffer.from(String(k))) : [];
  const meanValueBytes = values.reduce((a, b) => a + b.length, 0) / values.length;
  const meanKeyBytes = keyBufs.length === 0 ? 0 : keyBufs.reduce((a, b) => a + b.length, 0) / keyBufs.length;
  return {
    value: (i) => values[i % values.length]!,
    key: keys > 0 ? (i) => keyBufs[i % keys] ?? Buffer.from(String(i % keys)) : () => null,
    meanValueBytes,
    meanKeyBytes,
  };
}

/** Records per batch for a batch.size budget: header 61 bytes, at most about 12 bytes of framing a record (length, attributes, deltas, key and value lengths, header count as varints). */
export function recordsPerBatch(batchSizeBytes: number, meanRecordBytes: number): number {
  return Math.max(1, Math.floor((batchSizeBytes - 61) / (meanRecordBytes + 12)));
}
