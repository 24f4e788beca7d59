// Kafka prints UUIDs (topic ids, cluster ids) as 22-character URL-safe base64 without padding
// (org.apache.kafka.common.Uuid#toString), so the codec uses that form for `uuid` fields.

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export function uuidToBytes(uuid: string, out: Buffer, offset: number): void {
  const bytes = Buffer.from(uuid, 'base64url');
  if (bytes.length !== 16) throw new RangeError(`invalid uuid "${uuid}": expected 22 base64url characters (16 bytes)`);
  bytes.copy(out, offset);
}

export function uuidFromBytes(buf: Buffer, offset: number): string {
  return buf.toString('base64url', offset, offset + 16);
}

/** A random (version 4) UUID in Kafka's string form. Kafka never hands out the all-zero UUID or one starting with '-'. */
export function randomUuid(): string {
  for (;;) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only on this rare path
    const b = require('node:crypto').randomBytes(16) as Buffer;
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const s = b.toString('base64url');
    if (s !== ZERO_UUID && !s.startsWith('-')) return s;
  }
}
