// A records field given as stored batches not yet joined (src/protocol/records.ts) encodes to the
// same bytes as their concatenation, and the large batches are kept by reference, not copied.
import { randomBytes } from 'node:crypto';
import { decodeFetchResponse, encodeFetchResponse, type FetchResponse } from '../../src/protocol/messages';
import { Reader } from '../../src/protocol/reader';
import { RecordChunks, recordBytes, type Records } from '../../src/protocol/records';
import { Writer } from '../../src/protocol/writer';

function fetchResponse(records: Records): FetchResponse {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topic: 't',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            highWatermark: 10n,
            lastStableOffset: 10n,
            logStartOffset: 0n,
            abortedTransactions: null,
            preferredReadReplica: -1,
            records,
          },
        ],
      },
    ],
  };
}

describe('RecordChunks', () => {
  // Large (by reference) and small (copied) batches mixed, as a topic of several producers gives.
  const batches = [randomBytes(16_384), randomBytes(100), randomBytes(5000), randomBytes(61), randomBytes(4096)];
  const joined = Buffer.concat(batches);

  it.each([4, 12, 16])('encodes a Fetch v%i answer byte for byte as the joined batches', (v) => {
    const whole = new Writer();
    encodeFetchResponse(whole, v, fetchResponse(joined));
    const chunked = new Writer();
    encodeFetchResponse(chunked, v, fetchResponse(new RecordChunks(batches)));
    expect(chunked.length).toBe(whole.length);
    expect(chunked.toBuffer().equals(whole.toBuffer())).toBe(true);
    const decoded = decodeFetchResponse(new Reader(chunked.toBuffer()), v);
    expect(recordBytes(decoded.responses[0]!.partitions[0]!.records!).equals(joined)).toBe(true);
  });

  it('keeps the large batches by reference: the chunks handed to the socket are those buffers', () => {
    const w = new Writer();
    encodeFetchResponse(w, 16, fetchResponse(new RecordChunks(batches)));
    const chunks = w.toChunks();
    for (const large of [batches[0]!, batches[2]!, batches[4]!]) expect(chunks).toContain(large);
    expect(chunks).not.toContain(batches[1]!);
  });

  it('counts its length and joins for readers that want one buffer', () => {
    const set = new RecordChunks(batches);
    expect(set.length).toBe(joined.length);
    expect(recordBytes(set).equals(joined)).toBe(true);
    expect(recordBytes(joined)).toBe(joined);
  });
});
