import { DecodeError } from './errors';
import { uuidFromBytes } from './uuid';

/**
 * Reads Kafka primitives from a Buffer slice [offset, end). It never reads past `end`, and every
 * length taken from the wire is checked against the bytes that remain before anything is allocated,
 * so a hostile frame can make it throw DecodeError but not allocate more than the frame holds.
 */
export class Reader {
  offset: number;
  readonly end: number;

  constructor(
    readonly buf: Buffer,
    offset = 0,
    end = buf.length,
  ) {
    this.offset = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number, what: string): number {
    const at = this.offset;
    if (n > this.end - at) {
      throw new DecodeError(`${what} needs ${n} bytes at offset ${at}, only ${this.end - at} left`);
    }
    this.offset = at + n;
    return at;
  }

  bool(): boolean {
    return this.buf[this.need(1, 'bool')] !== 0;
  }
  int8(): number {
    return this.buf.readInt8(this.need(1, 'int8'));
  }
  int16(): number {
    return this.buf.readInt16BE(this.need(2, 'int16'));
  }
  uint16(): number {
    return this.buf.readUInt16BE(this.need(2, 'uint16'));
  }
  int32(): number {
    return this.buf.readInt32BE(this.need(4, 'int32'));
  }
  uint32(): number {
    return this.buf.readUInt32BE(this.need(4, 'uint32'));
  }
  int64(): bigint {
    return this.buf.readBigInt64BE(this.need(8, 'int64'));
  }
  float64(): number {
    return this.buf.readDoubleBE(this.need(8, 'float64'));
  }
  uuid(): string {
    return uuidFromBytes(this.buf, this.need(16, 'uuid'));
  }

  /** Unsigned LEB128 varint, at most 5 bytes (32 bits). */
  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.buf[this.need(1, 'varint')]!;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (value > 0xffffffff) throw new DecodeError(`varint out of range at offset ${this.offset}`);
        return value;
      }
    }
    throw new DecodeError(`varint longer than 5 bytes at offset ${this.offset}`);
  }

  /** Zigzag-encoded signed 32-bit varint (record fields). */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Zigzag-encoded signed 64-bit varint, at most 10 bytes. */
  varlong(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.buf[this.need(1, 'varlong')]!;
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        value = BigInt.asUintN(64, value);
        return (value >> 1n) ^ -(value & 1n);
      }
    }
    throw new DecodeError(`varlong longer than 10 bytes at offset ${this.offset}`);
  }

  /** Zigzag varlong that fits a JS number exactly (timestamp deltas); throws beyond 2^53. */
  varlongNumber(): number {
    const v = this.varlong();
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new DecodeError(`varlong ${v} does not fit a safe integer`);
    }
    return Number(v);
  }

  private utf8(len: number): string {
    const at = this.need(len, 'string');
    return this.buf.toString('utf8', at, at + len);
  }

  private slice(len: number): Buffer {
    const at = this.need(len, 'bytes');
    return this.buf.subarray(at, at + len);
  }

  nullableString(): string | null {
    const len = this.int16();
    if (len < -1) throw new DecodeError(`string length ${len} is negative`);
    return len === -1 ? null : this.utf8(len);
  }
  string(): string {
    const s = this.nullableString();
    if (s === null) throw new DecodeError('non-nullable string was null');
    return s;
  }
  compactNullableString(): string | null {
    const n = this.uvarint();
    return n === 0 ? null : this.utf8(n - 1);
  }
  compactString(): string {
    const s = this.compactNullableString();
    if (s === null) throw new DecodeError('non-nullable compact string was null');
    return s;
  }

  /** Zero-copy: the returned Buffer is a view into the frame. */
  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len < -1) throw new DecodeError(`bytes length ${len} is negative`);
    return len === -1 ? null : this.slice(len);
  }
  bytes(): Buffer {
    const b = this.nullableBytes();
    if (b === null) throw new DecodeError('non-nullable bytes were null');
    return b;
  }
  compactNullableBytes(): Buffer | null {
    const n = this.uvarint();
    return n === 0 ? null : this.slice(n - 1);
  }
  compactBytes(): Buffer {
    const b = this.compactNullableBytes();
    if (b === null) throw new DecodeError('non-nullable compact bytes were null');
    return b;
  }

  /**
   * Array element count, -1 for null. Each element takes at least one byte, so a count larger than
   * the bytes left is rejected before the caller allocates anything.
   */
  arrayLength(): number {
    const n = this.int32();
    if (n < -1) throw new DecodeError(`array length ${n} is negative`);
    return this.checkCount(n);
  }
  compactArrayLength(): number {
    return this.checkCount(this.uvarint() - 1);
  }
  private checkCount(n: number): number {
    if (n > this.end - this.offset) {
      throw new DecodeError(`array of ${n} elements cannot fit in the ${this.end - this.offset} bytes left`);
    }
    return n;
  }

  skip(n: number): void {
    this.need(n, 'skip');
  }

  /** Skips a tagged-field section whose tags the caller does not know. */
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.skip(this.uvarint());
    }
  }
}
