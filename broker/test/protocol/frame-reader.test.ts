import fc from 'fast-check';
import { FrameReader, FrameTooLargeError } from '../../src/protocol/frame-reader';
import { RequestMemoryPool } from '../../src/server/request-memory-pool';

const framed = (payload: Buffer) => {
  const b = Buffer.alloc(4 + payload.length);
  b.writeInt32BE(payload.length);
  payload.copy(b, 4);
  return b;
};

describe('FrameReader', () => {
  it('returns the same frames however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1 }),
        (payloads, cuts) => {
          const stream = Buffer.concat(payloads.map((p) => framed(Buffer.from(p))));
          const reader = new FrameReader(1024);
          const out: Buffer[] = [];
          let at = 0;
          let i = 0;
          while (at < stream.length) {
            const n = cuts[i++ % cuts.length]!;
            out.push(...reader.push(stream.subarray(at, at + n)).map((f) => Buffer.from(f)));
            at += n;
          }
          expect(out.map((b) => b.toString('hex'))).toEqual(payloads.map((p) => Buffer.from(p).toString('hex')));
          expect(reader.pendingBytes).toBe(0);
        },
      ),
    );
  });

  it('rejects a size above the limit (or negative) from the prefix alone', () => {
    const reader = new FrameReader(100);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(101);
    expect(() => reader.push(prefix)).toThrow(FrameTooLargeError);
    const neg = Buffer.alloc(4);
    neg.writeInt32BE(-1);
    expect(() => new FrameReader(100).push(neg)).toThrow(FrameTooLargeError);
  });
});

describe('FrameReader admission (QUEUED_MAX_REQUEST_BYTES)', () => {
  it('asks once per frame with its size, holds the frame unread while refused, and reads it once admitted', () => {
    const asked: number[] = [];
    let allow = false;
    const reader = new FrameReader(1024, (size) => {
      asked.push(size);
      return allow;
    });
    const stream = Buffer.concat([framed(Buffer.from('first')), framed(Buffer.from('second!'))]);
    expect(reader.push(stream.subarray(0, 6))).toEqual([]);
    expect(reader.blocked).toBe(true);
    expect(reader.push(stream.subarray(6))).toEqual([]);
    allow = true;
    const frames = reader.push(Buffer.alloc(0));
    expect(frames.map((f) => f.toString())).toEqual(['first', 'second!']);
    expect(reader.blocked).toBe(false);
    expect(asked).toEqual([5, 5, 5, 7]);
  });

  it('refuses a frame past the limit before asking for memory', () => {
    const admit = jest.fn(() => true);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(2048);
    expect(() => new FrameReader(1024, admit).push(prefix)).toThrow(
      /2048 bytes exceeds the 1024-byte limit \(SOCKET_REQUEST_MAX_BYTES/,
    );
    expect(admit).not.toHaveBeenCalled();
  });
});

describe('RequestMemoryPool', () => {
  it('gives memory while it has it, and wakes waiters when some is released', () => {
    const pool = new RequestMemoryPool(100);
    expect(pool.tryReserve(60)).toBe(true);
    expect(pool.tryReserve(50)).toBe(false);
    const woken: string[] = [];
    pool.onRelease(() => woken.push('a'));
    pool.onRelease(() => woken.push('b'));
    pool.release(60);
    expect(woken).toEqual(['a', 'b']);
    expect(pool.usedBytes).toBe(0);
    expect(pool.tryReserve(100)).toBe(true);
    const cancelled = () => woken.push('cancelled');
    pool.onRelease(cancelled);
    pool.cancel(cancelled);
    pool.release(100);
    expect(woken).toEqual(['a', 'b']);
  });
});
