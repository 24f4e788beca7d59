import { CompressionType } from '../../../src/protocol/compression';
import {
  decodeRecords,
  encodeRecordBatch,
  readBatchHeader,
  TimestampType,
  verifyBatchCrc,
} from '../../../src/protocol/record-batch';
import { readRawRecords, rewriteBatch } from '../../../src/storage/compaction/batch-filter';

const codecs = [
  ['none', CompressionType.None],
  ['gzip', CompressionType.Gzip],
  ['zstd', CompressionType.Zstd],
  ['snappy', CompressionType.Snappy],
  ['lz4', CompressionType.Lz4],
] as const;

function sample(codec: CompressionType, timestampType: TimestampType = TimestampType.CreateTime): Buffer {
  return encodeRecordBatch({
    baseOffset: 100n,
    compression: codec,
    timestampType,
    baseTimestamp: 1000n,
    producerId: 7n,
    producerEpoch: 3,
    baseSequence: 42,
    isTransactional: true,
    records: [
      { key: Buffer.from('a'), value: Buffer.from('1'), timestamp: 1000n },
      {
        key: Buffer.from('b'),
        value: Buffer.from('2'),
        timestamp: 1005n,
        headers: [{ key: 'h', value: Buffer.from('x') }],
      },
      { key: Buffer.from('a'), value: null, timestamp: 1003n },
    ],
  });
}

describe('compaction batch filter', () => {
  it.each(codecs)('keeps the header and rewrites the retained records (%s)', (_name, codec) => {
    const original = sample(codec);
    const records = readRawRecords(original);
    expect(records.map((r) => r.record.offsetDelta)).toEqual([0, 1, 2]);
    const out = rewriteBatch(original, [records[0]!, records[2]!]);
    expect(verifyBatchCrc(out)).toBe(true);
    const before = readBatchHeader(original);
    const after = readBatchHeader(out);
    expect(after).toMatchObject({
      baseOffset: 100n,
      lastOffsetDelta: 2,
      producerId: 7n,
      producerEpoch: 3,
      baseSequence: 42,
      attributes: before.attributes,
      baseTimestamp: 1000n,
      maxTimestamp: 1003n, // recomputed from the retained records (CreateTime)
      recordsCount: 2,
    });
    const decoded = decodeRecords(out);
    expect(decoded.map((r) => [r.offsetDelta, r.key?.toString(), r.value?.toString() ?? null])).toEqual([
      [0, 'a', '1'],
      [2, 'a', null],
    ]);
  });

  it('keeps headers byte for byte', () => {
    const original = sample(CompressionType.Gzip);
    const records = readRawRecords(original);
    const decoded = decodeRecords(rewriteBatch(original, [records[1]!]));
    expect(decoded[0]!.headers).toEqual([{ key: 'h', value: Buffer.from('x') }]);
  });

  it.each(codecs)('writes an empty batch with its offsets and producer fields (%s)', (_name, codec) => {
    const original = sample(codec);
    const out = rewriteBatch(original, []);
    expect(verifyBatchCrc(out)).toBe(true);
    expect(readBatchHeader(out)).toMatchObject({
      baseOffset: 100n,
      lastOffsetDelta: 2,
      recordsCount: 0,
      producerId: 7n,
      baseSequence: 42,
      maxTimestamp: 1005n,
      batchLength: 49,
    });
    expect(decodeRecords(out)).toEqual([]);
    expect(out.readInt16BE(21) & 7).toBe(0); // no codec: clients cannot decompress zero bytes
  });

  it('keeps maxTimestamp with LogAppendTime', () => {
    const original = sample(CompressionType.None, TimestampType.LogAppendTime);
    const records = readRawRecords(original);
    expect(readBatchHeader(rewriteBatch(original, [records[0]!])).maxTimestamp).toBe(
      readBatchHeader(original).maxTimestamp,
    );
  });
});
