// Splits a TCP byte stream into Kafka frames (int32 size + payload). The size is checked against
// the limit before anything is allocated; chunks are kept in a list and joined once per frame, so
// a large frame arriving in many small `data` events costs one copy, not one per event.
export class FrameTooLargeError extends Error {
  override readonly name = 'FrameTooLargeError';
}

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Size of the frame being read, or -1 until its 4-byte prefix has arrived. */
  private frameSize = -1;

  constructor(private readonly maxFrameBytes: number) {}

  /** Feeds bytes; returns the complete frames they finish (payload without the size prefix). */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.frameSize < 0) {
        if (this.buffered < 4) break;
        const size = this.peekInt32();
        if (size < 0 || size > this.maxFrameBytes) {
          throw new FrameTooLargeError(`request frame of ${size} bytes exceeds the ${this.maxFrameBytes}-byte limit (SOCKET_REQUEST_MAX_BYTES)`);
        }
        this.take(4);
        this.frameSize = size;
      }
      if (this.buffered < this.frameSize) break;
      frames.push(this.take(this.frameSize));
      this.frameSize = -1;
    }
    return frames;
  }

  /** Bytes held for an incomplete frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  private peekInt32(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readInt32BE(0);
    return Buffer.concat(this.chunks, 4).readInt32BE(0);
  }

  /** Removes and returns the next n bytes (a view when they sit in one chunk). */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    this.buffered -= n;
    const first = this.chunks[0]!;
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const c = this.chunks[0]!;
      const want = n - at;
      if (c.length <= want) {
        c.copy(out, at);
        at += c.length;
        this.chunks.shift();
      } else {
        c.copy(out, at, 0, want);
        this.chunks[0] = c.subarray(want);
        at += want;
      }
    }
    return out;
  }
}
