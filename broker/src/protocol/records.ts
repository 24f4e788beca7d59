// The records field of a response (Fetch, ShareFetch, FetchSnapshot). Decoded, it is one Buffer.
// Encoded by the broker, it may be the stored batches as they were read, back to back: the Writer
// appends each by reference and the connection hands the list to the socket in one writev, so a
// 1 MiB Fetch answer of 64 stored batches is not first copied into one buffer (Kafka's
// FetchResponse carries a BaseRecords for the same reason: FileRecords go out by sendfile).
/** Record batches, back to back, that make one records field. */
export class RecordChunks {
  /** Their bytes in all: the field's length on the wire. */
  readonly length: number;

  constructor(readonly chunks: readonly Buffer[]) {
    let n = 0;
    for (const c of chunks) n += c.length;
    this.length = n;
  }
}

export type Records = Buffer | RecordChunks;

/** The bytes of a records field: as they are if one Buffer (always so when decoded), else joined. */
export function recordBytes(records: Records): Buffer {
  return records instanceof RecordChunks ? Buffer.concat(records.chunks, records.length) : records;
}
