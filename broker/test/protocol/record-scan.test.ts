// The allocation-free record walk used by produce validation must refuse exactly what
// decodeRecords (consumers, tools) refuses, plus offsetDeltas that are not 0..n-1.
import fc from 'fast-check';
import { BATCH_HEADER_SIZE, RECORDS_COUNT, decodeRecords, encodeRecordBatch } from '../../src/protocol/record-batch';
import { RecordScanError, scanRecords } from '../../src/protocol/record-scan';

const bytesOrNull = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  { nil: null },
);
const recordsArb = fc.array(
  fc.record({
    key: bytesOrNull,
    value: bytesOrNull,
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 6 }), value: bytesOrNull }), { maxLength: 3 }),
    // Deltas past 4 varint bytes take the scanner's slow path.
    timestampDelta: fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.integer({ min: -(2 ** 45), max: 2 ** 45 })),
  }),
  { minLength: 1, maxLength: 12 },
);

function scan(batch: Buffer) {
  return scanRecords(batch, BATCH_HEADER_SIZE, batch.length, batch.readInt32BE(RECORDS_COUNT));
}

describe('scanRecords', () => {
  it('reports the timestamp-delta range and the null keys of valid batches', () => {
    fc.assert(
      fc.property(recordsArb, (records) => {
        const batch = encodeRecordBatch({ records, baseTimestamp: 1_700_000_000_000n });
        const deltas = records.map((r) => r.timestampDelta);
        expect(scan(batch)).toEqual({
          minTimestampDelta: Math.min(...deltas),
          maxTimestampDelta: Math.max(...deltas),
          nullKeys: records.filter((r) => r.key === null).length,
        });
      }),
    );
  });

  it('agrees with decodeRecords on damaged batches (random byte changes in the records)', () => {
    fc.assert(
      fc.property(
        recordsArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (records, edits) => {
          const batch = encodeRecordBatch({ records, baseTimestamp: 0n });
          const span = batch.length - BATCH_HEADER_SIZE;
          for (const [at, byte] of edits) batch[BATCH_HEADER_SIZE + (at % span)] = byte;
          let decoded: ReturnType<typeof decodeRecords> | undefined;
          try {
            decoded = decodeRecords(batch);
          } catch {
            decoded = undefined;
          }
          let scanned: ReturnType<typeof scan> | undefined;
          try {
            scanned = scan(batch);
          } catch (err) {
            expect(err).toBeInstanceOf(RecordScanError);
            scanned = undefined;
          }
          const sequential = decoded?.every((r, i) => r.offsetDelta === i) ?? false;
          expect(scanned !== undefined).toBe(decoded !== undefined && sequential);
          if (scanned && decoded) {
            const deltas = decoded.map((r) => r.timestampDelta);
            expect(scanned).toEqual({
              minTimestampDelta: Math.min(...deltas),
              maxTimestampDelta: Math.max(...deltas),
              nullKeys: decoded.filter((r) => r.key === null).length,
            });
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('names the record that failed', () => {
    const batch = encodeRecordBatch({
      records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }, { value: Buffer.from('c') }],
    });
    batch.writeInt32BE(5, RECORDS_COUNT);
    expect(() => scan(batch)).toThrow(
      expect.objectContaining({ recordIndex: 3, message: expect.stringMatching(/declares 5 records but holds 3/) }),
    );
  });
});
