import fc from 'fast-check';
import { FrameReader, FrameTooLargeError } from '../../src/server/frame-reader';

const framed = (payload: Buffer) => {
  const b = Buffer.alloc(4 + payload.length);
  b.writeInt32BE(payload.length);
  payload.copy(b, 4);
  return b;
};

describe('FrameReader', () => {
  it('returns the same frames however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1 }), (payloads, cuts) => {
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
      }),
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
