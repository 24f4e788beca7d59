// Splits a TCP byte stream into Kafka frames (int32 size + payload). The size is checked against
// the limit, and admitted (the broker-wide request memory pool), before anything is allocated. A
// frame that does not arrive in one piece gets its own buffer once, and later chunks are copied
// straight into it: one copy per byte, and never more than the frame size held for it.
export class FrameTooLargeError extends Error {
  override readonly name = 'FrameTooLargeError';
}

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Size of the frame being read, or -1 until its 4-byte prefix has arrived and been admitted. */
  private frameSize = -1;
  /** The frame being filled in place, when its bytes came in more than one chunk. */
  private target: Buffer | null = null;
  private filled = 0;
  private waitingForAdmission = false;

  /**
   * @param admit asked once per frame with its size when its prefix arrives; false leaves the
   * frame unread (and `blocked` true) until push() is called again, e.g. with an empty buffer.
   */
  constructor(
    private readonly maxFrameBytes: number,
    private readonly admit: (size: number) => boolean = () => true,
  ) {}

  /** Feeds bytes; returns the complete frames they finish (payload without the size prefix). */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    if (this.target) {
      const n = Math.min(chunk.length, this.frameSize - this.filled);
      chunk.copy(this.target, this.filled, 0, n);
      this.filled += n;
      if (this.filled < this.frameSize) return frames;
      frames.push(this.target);
      this.target = null;
      this.filled = 0;
      this.frameSize = -1;
      chunk = chunk.subarray(n);
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    this.waitingForAdmission = false;
    for (;;) {
      if (this.frameSize < 0) {
        if (this.buffered < 4) break;
        const size = this.peekInt32();
        if (size < 0 || size > this.maxFrameBytes) {
          throw new FrameTooLargeError(
            `request frame of ${size} bytes exceeds the ${this.maxFrameBytes}-byte limit (SOCKET_REQUEST_MAX_BYTES; raise it if a client really sends requests that big)`,
          );
        }
        if (!this.admit(size)) {
          this.waitingForAdmission = true;
          break;
        }
        this.take(4);
        this.frameSize = size;
      }
      if (this.buffered < this.frameSize) {
        this.target = Buffer.allocUnsafe(this.frameSize);
        this.filled = this.buffered;
        this.takeInto(this.target, this.buffered);
        break;
      }
      frames.push(this.take(this.frameSize));
      this.frameSize = -1;
    }
    return frames;
  }

  /** Bytes held for an incomplete frame. */
  get pendingBytes(): number {
    return this.buffered + this.filled;
  }

  /** A frame's size prefix is here but was not admitted: call push() again once it may be. */
  get blocked(): boolean {
    return this.waitingForAdmission;
  }

  private peekInt32(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readInt32BE(0);
    return Buffer.concat(this.chunks, 4).readInt32BE(0);
  }

  /** Removes and returns the next n bytes (a view when they sit in one chunk). */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0]!;
    if (first.length >= n) {
      this.buffered -= n;
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    this.takeInto(out, n);
    return out;
  }

  /** Moves the next n buffered bytes to the start of `out`. */
  private takeInto(out: Buffer, n: number): void {
    this.buffered -= n;
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
  }
}
