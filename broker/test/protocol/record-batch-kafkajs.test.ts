// minnow's record batch codec against kafkajs's own encoder and decoder: an independent
// implementation of the same format, every codec, in both directions.
import fc from 'fast-check';
import { CompressionType, compress, decompress } from '../../src/protocol/compression';
import {
  type RecordBatchInput,
  decodeRecords,
  encodeRecordBatch,
  readBatchHeader,
  splitBatches,
  verifyBatchCrc,
} from '../../src/protocol/record-batch';
import { BASE_TS, bytesOrNull, codecs } from './record-batch-kit';

// kafkajs internals: its own record batch encoder/decoder, used as an independent implementation.
const { RecordBatch: kafkajsRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const kafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const kafkajsDecodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');
const KafkajsDecoder = require('kafkajs/src/protocol/decoder');
const kafkajsCompression = require('kafkajs/src/protocol/message/compression');

// kafkajs ships gzip only; plug ours in for the others, as its snappy/lz4/zstd plugins do.
for (const type of [CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd]) {
  kafkajsCompression.Codecs[type] = () => ({
    compress: async (encoder: { buffer: Buffer }) => compress(type, encoder.buffer),
    decompress: async (buf: Buffer) => decompress(type, buf),
  });
}

describe('interop with kafkajs', () => {
  const kafkajsRecordsArb = fc.array(
    fc.record({
      key: bytesOrNull,
      value: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
      // kafkajs decodes headers into an object: keep keys unique and not integer-like (JS would reorder them).
      headers: fc.uniqueArray(
        fc.record({
          key: fc.string({ maxLength: 6 }).map((k) => `h${k}`),
          value: fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a)),
        }),
        {
          selector: (h) => h.key,
          maxLength: 3,
        },
      ),
      timestampDelta: fc.integer({ min: 0, max: 10_000 }),
    }),
    { minLength: 1, maxLength: 10 },
  );

  it.each(codecs)('%s: a batch from kafkajs decodes with ours', async (_name, type) => {
    await fc.assert(
      fc.asyncProperty(kafkajsRecordsArb, async (records) => {
        const encoder = await kafkajsRecordBatch({
          compression: type,
          firstTimestamp: Number(BASE_TS),
          maxTimestamp: Number(BASE_TS) + Math.max(...records.map((r) => r.timestampDelta)),
          lastOffsetDelta: records.length - 1,
          records: records.map((r, i) =>
            kafkajsRecord({
              offsetDelta: i,
              timestampDelta: r.timestampDelta,
              key: r.key,
              value: r.value,
              headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value])),
            }),
          ),
        });
        const batch: Buffer = encoder.buffer;
        expect(splitBatches(batch)).toEqual({ batches: [batch], trailingBytes: 0 });
        expect(verifyBatchCrc(batch)).toBe(true);
        expect(readBatchHeader(batch).recordsCount).toBe(records.length);
        expect(decodeRecords(batch)).toEqual(records.map((r, i) => ({ ...r, attributes: 0, offsetDelta: i })));
      }),
      { numRuns: 25 },
    );
  });

  it.each(codecs)('%s: a batch from ours decodes with kafkajs', async (_name, type) => {
    await fc.assert(
      fc.asyncProperty(kafkajsRecordsArb, fc.bigInt({ min: 0n, max: 2n ** 62n }), async (records, baseOffset) => {
        const input: RecordBatchInput = { compression: type, baseOffset, baseTimestamp: BASE_TS, records };
        const decoded = await kafkajsDecodeBatch(new KafkajsDecoder(encodeRecordBatch(input)));
        expect(decoded.firstOffset).toBe(String(baseOffset));
        expect(decoded.lastOffsetDelta).toBe(records.length - 1);
        expect(
          decoded.records.map(
            (r: { key: Buffer | null; value: Buffer; headers: object; offset: string; timestamp: string }) => ({
              key: r.key,
              value: r.value,
              headers: r.headers,
              offset: r.offset,
              timestamp: r.timestamp,
            }),
          ),
        ).toEqual(
          records.map((r, i) => ({
            key: r.key,
            value: r.value,
            headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value])),
            offset: String(baseOffset + BigInt(i)),
            timestamp: String(BASE_TS + BigInt(r.timestampDelta)),
          })),
        );
      }),
      { numRuns: 25 },
    );
  });
});
