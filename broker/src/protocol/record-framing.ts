/**
 * Follows the record lengths of a batch's records while they are being inflated, chunk by chunk,
 * so inflating can stop at the first chunk that shows the batch is not what its header states: a
 * record shorter than any record can be, one longer than a record may be, or bytes after the stated
 * count of records. A bomb of zeros (record length 0) is refused after its first chunk instead of
 * inflating to the limit. Only the frame is checked; scanRecords checks each record's fields after.
 */
import { DecodeError } from './errors';
import { MIN_RECORD_BODY_SIZE } from './record';

/** A record longer than a record may be: refused as too large, not as malformed. */
export class RecordTooLargeError extends DecodeError {}

export class RecordFraming {
  private readonly chunks: Buffer[] = [];
  private total = 0;
  /** Where the next record's length varint starts, and the chunk holding that position. */
  private nextAt = 0;
  private chunk = 0;
  private chunkStart = 0;
  private framed = 0;

  constructor(
    private readonly count: number,
    private readonly maxRecordBytes: number,
  ) {}

  /** Takes the next inflated chunk (kept by reference); throws DecodeError at the first fault. */
  feed(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.total += chunk.length;
    for (;;) {
      if (this.framed === this.count) {
        if (this.total > this.nextAt) {
          throw new DecodeError(`the records hold bytes after the ${this.count} records the batch states`);
        }
        return;
      }
      const length = this.readLength();
      if (length === undefined) return; // the varint is not all here yet
      if (length < MIN_RECORD_BODY_SIZE) {
        throw new DecodeError(
          `record ${this.framed}: Invalid record size: ${length} bytes, a record takes at least ${MIN_RECORD_BODY_SIZE}`,
        );
      }
      if (length > this.maxRecordBytes) {
        throw new RecordTooLargeError(
          `record ${this.framed} of ${length} bytes exceeds max.message.bytes=${this.maxRecordBytes}`,
        );
      }
      this.nextAt = this.varintEnd + length;
      this.framed++;
    }
  }

  private varintEnd = 0;

  /** The zigzag varint at nextAt (sets varintEnd), undefined while its bytes are still to come. */
  private readLength(): number | undefined {
    let u = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.byteAt(this.nextAt + i);
      if (b === undefined) return undefined;
      if (i === 4 && b > 0x0f) throw new DecodeError(`record ${this.framed}: its length varint is longer than 32 bits`);
      u |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        this.varintEnd = this.nextAt + i + 1;
        return (u >>> 1) ^ -(u & 1);
      }
    }
    throw new DecodeError(`record ${this.framed}: its length varint is longer than 5 bytes`);
  }

  /** The inflated byte at `at`, or undefined past what arrived. */
  private byteAt(at: number): number | undefined {
    if (at >= this.total) return undefined;
    // A varint cut by the end of what arrived is read again from its start: step back.
    while (at < this.chunkStart) this.chunkStart -= this.chunks[--this.chunk]!.length;
    while (at >= this.chunkStart + this.chunks[this.chunk]!.length) {
      this.chunkStart += this.chunks[this.chunk]!.length;
      this.chunk++;
    }
    return this.chunks[this.chunk]![at - this.chunkStart];
  }
}
