// Kafka's default partitioner for keyed records: murmur2(key) made positive, modulo the
// partition count (org.apache.kafka.common.utils.Utils#murmur2), so minnow's CLI sends a key to
// the same partition the Java client would.
export function murmur2(data: Buffer): number {
  const length = data.length;
  const seed = 0x9747b28c;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (seed ^ length) | 0;
  const length4 = length >> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k =
      (data[i4]! & 0xff) +
      ((data[i4 + 1]! & 0xff) << 8) +
      ((data[i4 + 2]! & 0xff) << 16) +
      ((data[i4 + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const rest = length & 3;
  const at = length & ~3;
  if (rest === 3) h ^= (data[at + 2]! & 0xff) << 16;
  if (rest >= 2) h ^= (data[at + 1]! & 0xff) << 8;
  if (rest >= 1) {
    h ^= data[at]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key: Buffer, partitionCount: number): number {
  return (murmur2(key) & 0x7fffffff) % partitionCount;
}
