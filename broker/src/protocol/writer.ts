import { EncodeError } from './errors';
import { RecordChunks, type Records } from './records';
import { uuidToBytes } from './uuid';

const INITIAL_CAPACITY = 256;
/** Buffers at least this large are appended by reference (zero copy), not copied. */
const ZERO_COPY_THRESHOLD = 4096;

/**
 * Writes Kafka primitives into a buffer that doubles when full (amortised O(1) per byte, no
 * quadratic copying). Large byte fields (record batches) are kept by reference as separate chunks,
 * so a Fetch response can go to the socket as a list of buffers without copying stored batches.
 */
export class Writer {
  private buf: Buffer;
  private pos = 0;
  /** Completed chunks before `buf`; only used once a large buffer was appended by reference. */
  private chunks: Buffer[] = [];
  private chunkBytes = 0;

  constructor(capacity = INITIAL_CAPACITY) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.chunkBytes + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }
  int8(v: number): this {
    this.ensure(1);
    this.buf.writeInt8(v, this.pos);
    this.pos += 1;
    return this;
  }
  int16(v: number): this {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }
  uint16(v: number): this {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }
  int32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }
  uint32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }
  int64(v: bigint): this {
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
    return this;
  }
  float64(v: number): this {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
    return this;
  }
  uuid(v: string): this {
    this.ensure(16);
    uuidToBytes(v, this.buf, this.pos);
    this.pos += 16;
    return this;
  }

  uvarint(v: number): this {
    if (v < 0 || v > 0xffffffff || !Number.isInteger(v)) throw new EncodeError(`uvarint ${v} out of range`);
    this.ensure(5);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
    return this;
  }
  varint(v: number): this {
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }
  varlong(v: bigint): this {
    let u = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
    return this;
  }

  /** Appends raw bytes; large ones by reference (each chunk of a RecordChunks on its own). */
  raw(b: Records): this {
    if (b instanceof RecordChunks) {
      for (const c of b.chunks) this.raw(c);
      return this;
    }
    if (b.length >= ZERO_COPY_THRESHOLD) {
      this.flushChunk();
      this.chunks.push(b);
      this.chunkBytes += b.length;
      return this;
    }
    this.ensure(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
    return this;
  }

  private flushChunk(): void {
    if (this.pos === 0) return;
    const done = this.buf.subarray(0, this.pos);
    this.chunks.push(done);
    this.chunkBytes += this.pos;
    this.buf = Buffer.allocUnsafe(Math.max(INITIAL_CAPACITY, this.buf.length - this.pos));
    this.pos = 0;
  }

  private utf8(s: string, lengthPrefix: (n: number) => void): this {
    const len = Buffer.byteLength(s, 'utf8');
    lengthPrefix(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
    return this;
  }

  string(s: string): this {
    return this.utf8(s, (n) => {
      if (n > 0x7fff) throw new EncodeError(`string of ${n} bytes is longer than 32767`);
      this.int16(n);
    });
  }
  nullableString(s: string | null): this {
    return s === null ? this.int16(-1) : this.string(s);
  }
  compactString(s: string): this {
    return this.utf8(s, (n) => this.uvarint(n + 1));
  }
  compactNullableString(s: string | null): this {
    return s === null ? this.uvarint(0) : this.compactString(s);
  }
  bytes(b: Records): this {
    return this.int32(b.length).raw(b);
  }
  nullableBytes(b: Records | null): this {
    return b === null ? this.int32(-1) : this.bytes(b);
  }
  compactBytes(b: Records): this {
    return this.uvarint(b.length + 1).raw(b);
  }
  compactNullableBytes(b: Records | null): this {
    return b === null ? this.uvarint(0) : this.compactBytes(b);
  }
  arrayLength(n: number | null): this {
    return this.int32(n === null ? -1 : n);
  }
  compactArrayLength(n: number | null): this {
    return this.uvarint(n === null ? 0 : n + 1);
  }

  /** The written bytes as a list of buffers (zero copy), e.g. for socket writev. */
  toChunks(): Buffer[] {
    return this.pos === 0 ? this.chunks.slice() : [...this.chunks, this.buf.subarray(0, this.pos)];
  }

  /** The written bytes as one Buffer (copies only when large buffers were appended by reference). */
  toBuffer(): Buffer {
    if (this.chunks.length === 0) return this.buf.subarray(0, this.pos);
    return Buffer.concat(this.toChunks(), this.length);
  }
}
