// What the record batch tests share: sample batches, fast-check arbitraries of records and batches.
import fc from 'fast-check';
import { CompressionType } from '../../src/protocol/compression';
import { type RecordInput, encodeRecordBatch } from '../../src/protocol/record-batch';

export const codecs = Object.entries(CompressionType) as [string, CompressionType][];
export const BASE_TS = 1_700_000_000_000n;

export function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

export const bytesOrNull = fc.option(
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  { nil: null },
);
export const recordArb = fc.record({
  key: bytesOrNull,
  value: bytesOrNull,
  headers: fc.array(fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 8 }), value: bytesOrNull }), {
    maxLength: 3,
  }),
  // Deltas beyond int32 take the 64-bit varlong path.
  timestampDelta: fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 })),
});
export const batchArb = fc.record({
  records: fc.array(recordArb, { minLength: 1, maxLength: 20 }),
  compression: fc.constantFrom(...Object.values(CompressionType)),
  producerId: fc.bigInt({ min: -1n, max: 2n ** 63n - 1n }),
  producerEpoch: fc.integer({ min: -1, max: 32767 }),
  baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  isTransactional: fc.boolean(),
});

export function sampleBatch(type: CompressionType = CompressionType.None, n = 3): Buffer {
  const records: RecordInput[] = Array.from({ length: n }, (_, i) => ({
    key: i % 2 ? null : Buffer.from(`key-${i}`),
    value: Buffer.from(`value-${i}`.repeat(i + 1)),
    headers: [{ key: 'h', value: Buffer.from([i]) }],
    timestampDelta: i * 10,
  }));
  return encodeRecordBatch({ records, compression: type, baseTimestamp: BASE_TS });
}
