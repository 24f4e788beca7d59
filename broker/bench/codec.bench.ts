/**
 * Codec microbenchmarks: CRC-32C, batch headers, a Produce v9 request of 1 MiB, and each record
 * codec. Prints a markdown table and rewrites the "## Codec microbenchmarks" section of
 * BENCHMARKS.md at the repo root (other sections are kept). Run: `npm run bench:codec`.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CompressionType } from '../src/protocol/compression';
import { crc32c, crc32cImplementation, crc32cJs } from '../src/protocol/crc32c';
import { type ProduceRequest, decodeProduceRequest, encodeProduceRequest } from '../src/protocol/messages';
import { Reader } from '../src/protocol/reader';
import {
  decodeRecords,
  encodeRecordBatch,
  readBatchHeader,
  splitBatches,
  verifyBatchCrc,
} from '../src/protocol/record-batch';
import { Writer } from '../src/protocol/writer';

const MiB = 1024 * 1024;
const RUN_MS = Number(process.env.BENCH_MS ?? 1000);

interface Row {
  what: string;
  opsPerSec: number;
  mbPerSec?: number;
  note?: string;
}
const rows: Row[] = [];

/**
 * Runs fn for about RUN_MS after a short warm-up, in three rounds, and keeps the best round:
 * interference from other processes only ever slows a round down.
 */
function bench(what: string, bytesPerOp: number | undefined, fn: () => unknown, note?: string): void {
  const deadline = (ms: number) => process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  for (let end = deadline(RUN_MS / 5); process.hrtime.bigint() < end;) fn();
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let ops = 0;
    const start = process.hrtime.bigint();
    const end = deadline(RUN_MS / 3);
    let now = start;
    while (now < end) {
      for (let i = 0; i < 4; i++) fn();
      ops += 4;
      now = process.hrtime.bigint();
    }
    best = Math.max(best, ops / (Number(now - start) / 1e9));
  }
  const row: Row = { what, opsPerSec: best };
  if (bytesPerOp !== undefined) row.mbPerSec = (best * bytesPerOp) / MiB;
  if (note) row.note = note;
  rows.push(row);
  console.error(`${what}: ${fmt(best)} ops/s`);
}

function fmt(n: number): string {
  if (n >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toPrecision(3);
}

/** 1 KiB records that compress like typical JSON events, not like zeros or random bytes. */
function sampleRecords(count: number, size: number) {
  return Array.from({ length: count }, (_, i) => {
    let s = `{"id":${i},"user":"user-${(i * 7919) % 10007}","event":"page_view","path":"/products/${(i * 31) % 977}","ts":${1_700_000_000_000 + i}`;
    for (let f = 0; s.length < size - 2; f++) s += `,"f${f}":"${((i + 1) * (f + 13) * 2654435761) % 4294967296}"`;
    return { key: Buffer.from(`key-${i % 100}`), value: Buffer.from(`${s.slice(0, size - 1)}}`), headers: [] };
  });
}

// (a) CRC-32C over 1 MiB
const oneMiB = Buffer.alloc(MiB, 0x5a);
bench(
  'CRC-32C, 1 MiB',
  MiB,
  () => crc32c(oneMiB),
  crc32cImplementation === 'native' ? '@node-rs/crc32' : 'slicing-by-8 (fallback)',
);
bench('CRC-32C, 1 MiB, JS slicing-by-8', MiB, () => crc32cJs(oneMiB), 'fallback, for comparison');

// (b) batch header decode
const records = sampleRecords(1024, 1024);
const batch = encodeRecordBatch({ records, baseTimestamp: 1_700_000_000_000n });
bench('readBatchHeader', undefined, () => readBatchHeader(batch));

// (c) Produce v9 with 1 MiB of 1 KiB records
const request: ProduceRequest = {
  transactionalId: null,
  acks: -1,
  timeoutMs: 30_000,
  topicData: [{ name: 'bench', partitionData: [{ index: 0, records: batch }] }],
};
const encodeRequest = () => {
  const w = new Writer();
  encodeProduceRequest(w, 9, request);
  return w.toBuffer();
};
const frame = encodeRequest();
bench(
  'Produce v9 encode to chunks',
  undefined,
  () => {
    const w = new Writer();
    encodeProduceRequest(w, 9, request);
    return w.toChunks();
  },
  'records appended by reference, as a socket writev would take them',
);
bench('Produce v9 encode + toBuffer', frame.length, encodeRequest, 'joins the chunks: one fresh 1 MiB copy');
bench(
  'Produce v9 decode',
  undefined,
  () => decodeProduceRequest(new Reader(frame), 9),
  'records stay a view of the frame',
);
bench(
  'Produce v9 decode + split + header + CRC',
  frame.length,
  () => {
    const req = decodeProduceRequest(new Reader(frame), 9);
    for (const { batches } of [splitBatches(req.topicData[0]!.partitionData[0]!.records!)]) {
      for (const b of batches)
        if (!verifyBatchCrc(b) || readBatchHeader(b).recordsCount < 0) throw new Error('bad batch');
    }
  },
  'what the broker does per produce',
);

// (d) records per codec: 1 MiB of 1 KiB records
for (const [name, type] of Object.entries(CompressionType)) {
  const encoded = encodeRecordBatch({ records, compression: type, baseTimestamp: 1_700_000_000_000n });
  const ratio = batch.length / encoded.length;
  bench(
    `${name}: encode 1024 × 1 KiB records`,
    batch.length,
    () => encodeRecordBatch({ records, compression: type, baseTimestamp: 1_700_000_000_000n }),
    `ratio ${ratio.toFixed(2)}`,
  );
  bench(
    `${name}: decode 1024 × 1 KiB records`,
    batch.length,
    () => decodeRecords(encoded),
    'MB/s of uncompressed records',
  );
}

// Report
const cpu = cpus()[0]?.model ?? readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown';
const mallocEnv = Object.entries(process.env)
  .filter(([k]) => k.startsWith('MALLOC_'))
  .map(([k, v]) => `${k}=${v}`);
const load = loadavg()[0]!.toFixed(1);
const machine = `${cpu}, ${cpus().length} vCPUs, Node ${process.version}, ${process.platform}/${process.arch}${mallocEnv.length ? `, ${mallocEnv.join(' ')}` : ''}`;
const table = [
  '| benchmark | ops/s | MB/s | note |',
  '|---|---:|---:|---|',
  ...rows.map(
    (r) => `| ${r.what} | ${fmt(r.opsPerSec)} | ${r.mbPerSec === undefined ? '' : fmt(r.mbPerSec)} | ${r.note ?? ''} |`,
  ),
].join('\n');
const section = [
  '## Codec microbenchmarks',
  '',
  `\`npm run bench:codec\` in broker/ (bench/codec.bench.ts), ${new Date().toISOString().slice(0, 10)}. Machine: ${machine}; load average ${load} while it ran.`,
  'Single thread, best of three ~0.33 s rounds per line; MB/s means MiB/s of the input (uncompressed records for the codec lines).',
  '',
  table,
  '',
].join('\n');
console.log(table);

const path = join(__dirname, '..', '..', 'BENCHMARKS.md');
const old = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n\n';
const start = old.search(/^## Codec microbenchmarks\s*$/m);
let next: string;
if (start === -1) {
  next = `${old.trimEnd()}\n\n${section}`;
} else {
  const rest = old.slice(start + 1);
  const endRel = rest.search(/^## /m);
  next = old.slice(0, start) + section + (endRel === -1 ? '' : `\n${rest.slice(endRel)}`);
}
writeFileSync(path, next);
console.error(`updated ${path}`);
