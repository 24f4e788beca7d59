import fc from 'fast-check';
import { crc32c, crc32cImplementation, crc32cJs } from '../../src/protocol/crc32c';

// Check values from RFC 3720 (iSCSI) appendix B.4 and the CRC catalogue.
const vectors: [string, Buffer, number][] = [
  ['"123456789"', Buffer.from('123456789'), 0xe3069283],
  ['empty', Buffer.alloc(0), 0],
  ['32 zero bytes', Buffer.alloc(32, 0x00), 0x8a9136aa],
  ['32 0xff bytes', Buffer.alloc(32, 0xff), 0x62a8ab43],
  ['32 ascending bytes', Buffer.from(Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e],
  ['32 descending bytes', Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c],
];

describe('crc32c', () => {
  it('uses the native implementation on this platform', () => {
    expect(crc32cImplementation).toBe('native');
  });

  it.each(vectors)('matches the known check value for %s', (_name, input, expected) => {
    expect(crc32c(input)).toBe(expected);
    expect(crc32cJs(input)).toBe(expected);
  });

  it('covers only [start, end)', () => {
    const buf = Buffer.from('xx123456789yyy');
    expect(crc32c(buf, 2, 11)).toBe(0xe3069283);
    expect(crc32cJs(buf, 2, 11)).toBe(0xe3069283);
    expect(crc32c(buf, 2)).toBe(crc32c(Buffer.from('123456789yyy')));
  });

  it('native and slicing-by-8 agree on random input and ranges', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const buf = Buffer.from(bytes);
        const start = buf.length === 0 ? 0 : a % buf.length;
        const end = start + (buf.length === 0 ? 0 : b % (buf.length - start + 1));
        expect(crc32cJs(buf, start, end)).toBe(crc32c(buf, start, end));
      }),
    );
  });

  it('slicing-by-8 can continue from a previous state', () => {
    const whole = Buffer.from('The quick brown fox jumps over the lazy dog');
    const first = crc32cJs(whole, 0, 13);
    expect(crc32cJs(whole, 13, whole.length, first)).toBe(crc32c(whole));
  });

  it('returns an unsigned 32-bit value', () => {
    const v = crc32c(Buffer.from('123456789')); // 0xe3069283 has the top bit set
    expect(v).toBeGreaterThan(0x7fffffff);
    expect(Number.isInteger(v)).toBe(true);
  });
});
