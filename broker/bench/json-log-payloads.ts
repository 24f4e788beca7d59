// The codec scenario's payloads (throughput-scenarios.ts): records that compress as real ones do.
import { writeFileSync } from 'node:fs';
import { prng } from '../src/perf/payload';

/**
 * 1 KiB JSON log lines (repeated field names, a few vocabularies, random ids and numbers), for the
 * codec scenario: random A-Z text has no repeats for LZ4 or Snappy to find, real records do.
 */
export function jsonLogPayloads(file: string, count = 512, size = 1024): void {
  const rnd = prng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const words = [
    'order',
    'payment',
    'cart',
    'user',
    'session',
    'retry',
    'timeout',
    'ok',
    'created',
    'updated',
    'shipped',
    'warehouse',
    'eu-west-2',
    'us-east-1',
  ];
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const rec = {
      ts: new Date(1_767_225_600_000 + i * 137).toISOString(),
      level: pick(['INFO', 'INFO', 'INFO', 'WARN', 'ERROR', 'DEBUG']),
      service: pick(['checkout', 'payments', 'inventory', 'search', 'auth']),
      host: `ip-10-0-${Math.floor(rnd() * 8)}-${Math.floor(rnd() * 250)}`,
      traceId: hex(32),
      spanId: hex(16),
      userId: Math.floor(rnd() * 1e6),
      latencyMs: Math.round(rnd() * 5000) / 10,
      msg: Array.from({ length: 6 }, () => pick(words)).join(' '),
      items: Array.from({ length: 3 }, () => ({
        sku: `SKU-${Math.floor(rnd() * 1e5)}`,
        qty: 1 + Math.floor(rnd() * 4),
        price: Math.round(rnd() * 1e4) / 100,
      })),
      note: '',
    };
    let line = JSON.stringify(rec);
    while (line.length < size) {
      rec.note += `${pick(words)} `;
      line = JSON.stringify(rec);
    }
    lines.push(line.slice(0, size - 2) + '"}');
  }
  writeFileSync(file, lines.join('\n'));
}
