// RecordFraming follows record lengths across inflated chunks, however the chunks cut them.
import { DecodeError } from '../../src/protocol/errors';
import { BATCH_HEADER_SIZE, encodeRecordBatch } from '../../src/protocol/record-batch';
import { RecordFraming, RecordTooLargeError } from '../../src/protocol/record-framing';

const records = (n: number, size: number) =>
  encodeRecordBatch({
    records: Array.from({ length: n }, (_, i) => ({ value: Buffer.alloc(size, i), timestamp: 1n })),
  }).subarray(BATCH_HEADER_SIZE);

function feedInChunks(framing: RecordFraming, data: Buffer, chunkSize: number): void {
  for (let at = 0; at < data.length; at += chunkSize) framing.feed(data.subarray(at, at + chunkSize));
}

describe('RecordFraming', () => {
  it.each([1, 2, 3, 7, 1000])('accepts valid records fed in chunks of %i bytes', (chunkSize) => {
    // 300-byte values: two-byte length varints, cut between their bytes by 1-byte chunks.
    expect(() => feedInChunks(new RecordFraming(5, 1 << 20), records(5, 300), chunkSize)).not.toThrow();
  });

  it('refuses bytes after the stated count', () => {
    const data = Buffer.concat([records(3, 10), Buffer.from([0])]);
    expect(() => feedInChunks(new RecordFraming(3, 1 << 20), data, 4)).toThrow(/bytes after the 3 records/);
  });

  it('refuses a record shorter than any record can be', () => {
    expect(() => new RecordFraming(3, 1 << 20).feed(Buffer.alloc(100))).toThrow(DecodeError);
  });

  it('refuses a record longer than max.message.bytes as too large', () => {
    expect(() => feedInChunks(new RecordFraming(2, 100), records(2, 300), 16)).toThrow(RecordTooLargeError);
  });
});
