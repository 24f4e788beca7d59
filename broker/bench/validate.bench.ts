/**
 * Produce validation microbenchmark: what checking one 16 KiB batch of 1 KiB records costs per
 * codec, now that every record is decoded (produce-validation.ts, as Kafka's LogValidator), next
 * to the header + CRC check it replaced. Prints a table and rewrites the "## Produce validation"
 * section of BENCHMARKS.md (other sections are kept). Run: `npm run bench:validate` in broker/.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CompressionType, decompress } from '../src/protocol/compression';
import { crc32c } from '../src/protocol/crc32c';
import {
  ATTRIBUTES,
  BATCH_HEADER_SIZE,
  RECORDS_COUNT,
  decodeRecords,
  encodeRecordBatch,
  readBatchHeader,
} from '../src/protocol/record-batch';
import { scanRecords } from '../src/protocol/record-scan';
import { producePolicy } from '../src/server/produce-policy';
import { validateProduceRecords } from '../src/server/produce-validation';

const RUN_MS = Number(process.env.BENCH_MS ?? 1500);
const RECORD_BYTES = 1024;
const RECORDS_PER_BATCH = 16;
/** The seed workload: 7,000 records/s of 1 KiB. */
const SEED_RECORDS_PER_SEC = 7000;

/**
 * Best ops per CPU-second of three rounds after a warm-up. CPU time (process.cpuUsage), not wall
 * time: the 2 vCPUs are shared, and another process taking the core stretches wall time only.
 */
function opsPerSec(fn: () => unknown): number {
  const deadline = (ms: number) => process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  for (let end = deadline(RUN_MS / 5); process.hrtime.bigint() < end;) fn();
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let ops = 0;
    const cpu = process.cpuUsage();
    const end = deadline(RUN_MS / 3);
    while (process.hrtime.bigint() < end) {
      for (let i = 0; i < 8; i++) fn();
      ops += 8;
    }
    const used = process.cpuUsage(cpu);
    best = Math.max(best, ops / ((used.user + used.system) / 1e6));
  }
  return best;
}

/** 1 KiB records that compress like typical JSON events (as bench/codec.bench.ts). */
function sampleRecords(count: number, size: number) {
  return Array.from({ length: count }, (_, i) => {
    let s = `{"id":${i},"user":"user-${(i * 7919) % 10007}","event":"page_view","path":"/products/${(i * 31) % 977}","ts":${1_700_000_000_000 + i}`;
    for (let f = 0; s.length < size - 2; f++) s += `,"f${f}":"${((i + 1) * (f + 13) * 2654435761) % 4294967296}"`;
    return { key: Buffer.from(`key-${i % 100}`), value: Buffer.from(`${s.slice(0, size - 1)}}`), timestampDelta: i };
  });
}

/** What the produce path did before: header, size and CRC only. */
function crcOnly(batch: Buffer): boolean {
  const h = readBatchHeader(batch);
  return crc32c(batch, ATTRIBUTES, batch.length) === h.crc && h.recordsCount === h.lastOffsetDelta + 1;
}

const now = Date.now();
const policy = producePolicy({}, 9, now);
const records = sampleRecords(RECORDS_PER_BATCH, RECORD_BYTES);
const us = (ops: number) => 1e6 / ops;
const f1 = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

interface Row {
  codec: string;
  wireBytes: number;
  crcUs: number;
  validateUs: number;
  decompressUs: number;
  scanUs: number;
  decodeUs: number;
  mbPerSec: number;
  seedCorePct: number;
}
const rows: Row[] = [];
for (const [name, type] of Object.entries(CompressionType)) {
  const batch = encodeRecordBatch({ records, compression: type, baseTimestamp: BigInt(now) });
  const rawBytes = encodeRecordBatch({ records, baseTimestamp: BigInt(now) }).length - BATCH_HEADER_SIZE;
  const check = validateProduceRecords(batch, policy);
  if (!check.ok) throw new Error(`${name}: the sample batch does not validate: ${check.message}`);
  const body = batch.subarray(BATCH_HEADER_SIZE);
  const plain = type === CompressionType.None ? body : decompress(type, body);
  const crcOps = opsPerSec(() => crcOnly(batch));
  const validateOps = opsPerSec(() => validateProduceRecords(batch, policy));
  const decompressOps = type === CompressionType.None ? Infinity : opsPerSec(() => decompress(type, body));
  const scanOps = opsPerSec(() => scanRecords(plain, 0, plain.length, batch.readInt32BE(RECORDS_COUNT)));
  // The allocating alternative: the same checks with decodeRecords building every record.
  const decodeOps = opsPerSec(() => crcOnly(batch) && decodeRecords(batch));
  const row: Row = {
    codec: name.toLowerCase(),
    wireBytes: batch.length,
    crcUs: us(crcOps),
    validateUs: us(validateOps),
    decompressUs: type === CompressionType.None ? 0 : us(decompressOps),
    scanUs: us(scanOps),
    decodeUs: us(decodeOps),
    mbPerSec: (validateOps * rawBytes) / (1024 * 1024),
    seedCorePct: ((us(validateOps) - us(crcOps)) * (SEED_RECORDS_PER_SEC / RECORDS_PER_BATCH)) / 1e4,
  };
  rows.push(row);
  console.error(
    `${name}: crc-only ${f1(row.crcUs)} µs, validate ${f1(row.validateUs)} µs (decompress ${f1(row.decompressUs)}, scan ${f1(row.scanUs)}), decodeRecords ${f1(row.decodeUs)} µs`,
  );
}

const cpu = cpus()[0]?.model ?? 'unknown';
const machine = `${cpu}, ${cpus().length} vCPUs, Node ${process.version}, ${process.platform}/${process.arch}`;
const table = [
  '| codec | batch on the wire | header + CRC (before) | full validation (now) | of which decompress | of which record scan | CRC + decodeRecords instead (allocating) | validation MB/s | added at the seed load, % of a core |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.codec} | ${r.wireBytes.toLocaleString('en-US')} B | ${f1(r.crcUs)} µs | ${f1(r.validateUs)} µs | ${r.decompressUs ? `${f1(r.decompressUs)} µs` : '-'} | ${f1(r.scanUs)} µs | ${f1(r.decodeUs)} µs | ${f1(r.mbPerSec)} | ${r.seedCorePct.toFixed(2)} % |`,
  ),
].join('\n');
const section = [
  '## Produce validation',
  '',
  `\`npm run bench:validate\` in broker/ (bench/validate.bench.ts), ${new Date().toISOString().slice(0, 10)}. Machine: ${machine}; load average ${loadavg()[0]!.toFixed(1)} while it ran.`,
  `One batch of ${RECORDS_PER_BATCH} × 1 KiB JSON records (16 KiB uncompressed), single thread, best of three rounds; µs of CPU time per batch (process.cpuUsage, so other processes on the shared vCPUs do not inflate it).`,
  "Full validation = header + CRC + decompression + the allocation-free record scan (record-scan.ts) + the timestamp range check, as Kafka's LogValidator decodes every record.",
  `MB/s counts uncompressed record bytes; the last column is (now - before) at the seed load (${SEED_RECORDS_PER_SEC.toLocaleString('en-US')} records/s = ${SEED_RECORDS_PER_SEC / RECORDS_PER_BATCH} such batches/s).`,
  '',
  table,
  '',
  'Reading it: for uncompressed batches the record scan adds little to the CRC pass; for compressed ones decompression is nearly all',
  'of the cost, and no codec can reach the records without it. The chosen path decompresses each batch once into one buffer and walks',
  'the varints in place (no object per record); the column "CRC + decodeRecords" is what building every record instead would cost.',
  'The stored batch stays the compressed bytes as produced; the decompressed copy is dropped at once. Decompression at these rates',
  "caps one core's produce throughput per codec (compare the load benchmarks' codec table).",
  '',
].join('\n');
console.log(table);

// Replace our section (up to the next heading or generated block), else insert it before the load benchmarks.
const path = join(__dirname, '..', '..', 'BENCHMARKS.md');
const old = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n\n';
const start = old.search(/^## Produce validation\s*$/m);
let next: string;
if (start >= 0) {
  const rest = old.slice(start + 1);
  const end = rest.search(/^(## |<!-- )/m);
  next = old.slice(0, start) + section + (end === -1 ? '' : `\n${rest.slice(end)}`);
} else {
  const before = old.search(/^<!-- bench:load:start/m);
  next = before === -1 ? `${old.trimEnd()}\n\n${section}` : `${old.slice(0, before)}${section}\n${old.slice(before)}`;
}
writeFileSync(path, next);
console.error(`updated ${path}`);
