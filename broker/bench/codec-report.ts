// bench:peers' compressed-produce scenario (issue 33, goal 4): what each codec's run is told, and
// its table rows: MB/s of records (uncompressed) per codec and tool, the broker's CPU and its CPU
// per MB, beside Kafka's. Pure: broker/test/perf/peers.test.ts.
import { int, mb, mbs, pctCore, ratio, Row } from './peer-table-format';
import type { PeerScenarioResult, ToolFigures, ToolName } from './peers-report';

export const CODECS = ['gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Codec = (typeof CODECS)[number];

/** One codec's load: kafka-producer-perf-test's record count (it has no duration), minnow perf's seconds. */
export interface CodecRun {
  codec: Codec;
  kptRecords: number;
  minnowSeconds: number;
}

/**
 * About 5-15 s per tool on a quiet 2-vCPU machine: the Java producer gzips JSON lines at ~30 MB/s
 * and the other codecs at 100-200 MB/s (one application thread compresses). --quick: a tenth.
 */
export function codecPlan(quick: boolean): CodecRun[] {
  const records: Record<Codec, number> = { gzip: 300_000, snappy: 1_200_000, lz4: 1_200_000, zstd: 1_000_000 };
  return CODECS.map((codec) => ({
    codec,
    kptRecords: quick ? records[codec] / 10 : records[codec],
    minnowSeconds: quick ? 3 : 10,
  }));
}

/**
 * `minnow perf`'s batches: 64 KiB of records, 5 in flight. The Java producer's batch.size (16 KiB)
 * counts compressed bytes, so its batches hold 40-90 KiB of these records (ratio 0.18-0.38); minnow
 * perf sizes batches by record bytes.
 */
export const MINNOW_CODEC_CLIENT = { name: 'batch 64 KiB of records, 5 in flight', batchSize: 65536, producers: 5 };

export const CODEC_SCENARIO_TITLE = `Compressed produce: 1 KiB JSON log lines per codec (${CODECS.join(', ')}), acks=all`;

/** The scenario's load, as BENCHMARKS.md prints it above the table. */
export function codecLoadText(plan: CodecRun[]): string {
  const counts = plan.map((r) => `${r.codec} ${r.kptRecords.toLocaleString('en-US')}`).join(', ');
  const c = MINNOW_CODEC_CLIENT;
  return `For each codec, one after the other, on a fresh broker per column (minnow, then Kafka, so a codec's two columns are measured minutes apart), each tool on its own topic: kafka-producer-perf-test \`--num-records <N> --payload-file <512 JSON log lines of 1,024 bytes> --throughput -1 --producer-props acks=all compression.type=<codec> bootstrap.servers=...\` (N: ${counts}; client defaults: batch.size 16 KiB of compressed bytes, linger.ms 5, 5 requests in flight), then \`minnow perf produce --payload-file <the same file> --compression <codec> --batch-size ${c.batchSize} --producers ${c.producers} --duration ${plan[0]?.minnowSeconds ?? 0}s --throughput -1\` (${c.name}: minnow perf sizes batches by record bytes; 64 KiB is about what the Java producer packs into its 16 KiB compressed). MB/s counts the records' uncompressed bytes (MiB); broker CPU per MB is the broker's CPU over the tool's window per MB of records. The payload is bench/json-log-payloads.ts's, as \`npm run bench\`'s codec table uses.`;
}

/** ms of broker CPU per MB (MiB) of records: % of a core over the window ÷ MB/s. */
export function cpuMsPerMb(t: Pick<ToolFigures, 'brokerCpuPercent' | 'mbPerSec'>): number {
  return t.mbPerSec > 0 ? (t.brokerCpuPercent * 10) / t.mbPerSec : NaN;
}

const runOf = (r: PeerScenarioResult, tool: ToolName, codec: Codec) =>
  r.runs.find((x) => x.tool === tool && x.codec === codec);

const TOOLS: ToolName[] = ['kafka-producer-perf-test', 'minnow perf produce'];

/** Per codec and tool: throughput, broker CPU, CPU per MB, the tool's CPU; then the broker's memory. */
export function codecRows(): Row[] {
  const rows: Row[] = [];
  for (const codec of CODECS)
    for (const tool of TOOLS) {
      const f = (pick: (t: ToolFigures) => number[]) => (r: PeerScenarioResult) => {
        const t = runOf(r, tool, codec);
        return t ? pick(t) : [NaN];
      };
      rows.push(
        {
          // "records/s" in the label: the ratio column takes the first figure only (MB/s).
          label: `${codec}, ${tool}: MB/s of records, uncompressed (records/s)`,
          value: f((t) => [t.mbPerSec, t.recordsPerSec, t.missing]),
          show: ([mbps, rec, missing]) =>
            Number.isFinite(mbps!)
              ? `${mbs(mbps!)} (${int(rec!)})${missing! > 0 ? `, ${int(missing!)} records short` : ''}`
              : '–',
        },
        {
          label: `${codec}, ${tool}: broker CPU, % of a core`,
          value: f((t) => [t.brokerCpuPercent]),
          show: ([x]) => pctCore(x!),
        },
        {
          label: `${codec}, ${tool}: broker CPU per MB of records, ms`,
          value: f((t) => [cpuMsPerMb(t)]),
          show: ([x]) => (Number.isFinite(x!) ? x!.toFixed(1) : '–'),
        },
        {
          label: `${codec}, ${tool}: the tool's own CPU, % of a core`,
          value: f((t) => [t.toolCpuPercent ?? NaN]),
          show: ([x]) => pctCore(x!),
          noRatio: true,
        },
      );
      if (tool === 'minnow perf produce')
        rows.push({
          label: `${codec}, ${tool}: batch bytes on the wire per record byte`,
          value: f((t) => [t.wirePerRecordByte ?? NaN]),
          show: ([x]) => (Number.isFinite(x!) ? x!.toFixed(3) : '–'),
          noRatio: true,
        });
    }
  rows.push(
    { label: 'broker RSS peak', value: (r) => [r.peakRssBytes], show: ([x]) => mb(x!) },
    {
      label: 'of which anonymous (heap, buffers; not mapped files)',
      value: (r) => [r.peakAnonBytes ?? NaN],
      show: ([x]) => mb(x!),
    },
  );
  return rows;
}

/** The summary's rows: kafka-producer-perf-test's MB/s per codec (label, figure of a result). */
export function codecSummaryRows(): [string, (r: PeerScenarioResult) => number][] {
  return CODECS.map((codec) => [
    `compressed produce ${codec} MB/s, kafka-producer-perf-test`,
    (r) => runOf(r, 'kafka-producer-perf-test', codec)?.mbPerSec ?? NaN,
  ]);
}

/** One line per codec for the log: minnow ÷ Kafka in MB/s and in CPU per MB, per tool. */
export function codecRatiosLine(minnow: PeerScenarioResult, kafka: PeerScenarioResult, codec: Codec): string {
  return TOOLS.map((tool) => {
    const a = runOf(minnow, tool, codec);
    const b = runOf(kafka, tool, codec);
    if (!a || !b) return `${tool}: –`;
    return `${tool}: MB/s ${ratio(a.mbPerSec, b.mbPerSec)}, CPU per MB ${ratio(cpuMsPerMb(a), cpuMsPerMb(b))}`;
  }).join('; ');
}
