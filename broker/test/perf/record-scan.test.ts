import { CompressionType } from '../../src/protocol/compression';
import { decodeRecords, encodeRecordBatch, setBaseOffset } from '../../src/protocol/record-batch';
import { scanBatch } from '../../src/perf/record-scan';

const batch = (compression: CompressionType) => {
  const b = encodeRecordBatch({
    compression,
    records: [
      { key: Buffer.from('k1'), value: Buffer.alloc(300, 1) },
      { key: null, value: Buffer.alloc(70_000, 2), headers: [{ key: 'h', value: Buffer.from('hv') }] },
      { key: Buffer.alloc(0), value: null },
      { key: Buffer.from('key-4'), value: Buffer.from('v'), timestamp: 10_000_000_000n },
    ],
    baseTimestamp: 1n,
  });
  setBaseOffset(b, 100n);
  return b;
};

describe('scanBatch', () => {
  it.each(Object.entries(CompressionType))('counts what decodeRecords decodes (%s)', (_name, codec) => {
    const b = batch(codec);
    const decoded = decodeRecords(b);
    const bytes = decoded.reduce((s, r) => s + (r.key?.length ?? 0) + (r.value?.length ?? 0), 0);
    expect(scanBatch(b, 0n, undefined)).toEqual({ records: 4, bytes, lastOffset: 103n });
  });

  it('skips records before the fetch offset and stops at the end offset and the limit', () => {
    const b = batch(CompressionType.None);
    expect(scanBatch(b, 101n, undefined)).toEqual({ records: 3, bytes: 70_000 + 0 + 6, lastOffset: 103n });
    expect(scanBatch(b, 100n, 102n)).toEqual({ records: 2, bytes: 302 + 70_000, lastOffset: 101n });
    expect(scanBatch(b, 100n, undefined, 1)).toEqual({ records: 1, bytes: 302, lastOffset: 100n });
    expect(scanBatch(b, 200n, undefined)).toEqual({ records: 0, bytes: 0, lastOffset: -1n });
  });

  it('rejects a record that claims more bytes than the batch holds', () => {
    const b = batch(CompressionType.None);
    b[61] = 0x7e; // first record's length varint: 63, wrong
    expect(() => scanBatch(b.subarray(0, 61 + 40), 0n, undefined)).toThrow();
  });
});
