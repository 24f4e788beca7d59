// Output formats. Producer and consumer lines follow Kafka's kafka-producer-perf-test
// (ProducerPerformance.java) and kafka-consumer-perf-test (ConsumerPerformance.scala) so scripts
// that parse those keep working; the one change is that the final percentiles carry two decimals
// (Kafka prints whole ms, which reads "0 ms 99th" for a broker on the same host).
import type { LatencySummary } from './histogram';

export const MiB = 1024 * 1024;

export interface WindowStats {
  records: number;
  bytes: number;
  elapsedMs: number;
  avgMs: number;
  maxMs: number;
}

const perSec = (n: number, ms: number) => (ms > 0 ? (n * 1000) / ms : 0);

/** "N records sent, X records/sec (Y MB/sec), Z ms avg latency, W ms max latency." */
export function producerProgressLine(w: WindowStats): string {
  return `${w.records} records sent, ${perSec(w.records, w.elapsedMs).toFixed(1)} records/sec (${(perSec(w.bytes, w.elapsedMs) / MiB).toFixed(2)} MB/sec), ${w.avgMs.toFixed(1)} ms avg latency, ${w.maxMs.toFixed(1)} ms max latency.`;
}

/** The final line: the progress line's figures plus 50th, 95th, 99th and 99.9th percentiles. */
export function producerFinalLine(records: number, bytes: number, elapsedMs: number, l: LatencySummary): string {
  return (
    `${records} records sent, ${perSec(records, elapsedMs).toFixed(1)} records/sec (${(perSec(bytes, elapsedMs) / MiB).toFixed(2)} MB/sec), ` +
    `${l.avgMs.toFixed(2)} ms avg latency, ${l.maxMs.toFixed(2)} ms max latency, ` +
    `${l.p50Ms.toFixed(2)} ms 50th, ${l.p95Ms.toFixed(2)} ms 95th, ${l.p99Ms.toFixed(2)} ms 99th, ${l.p999Ms.toFixed(2)} ms 99.9th.`
  );
}

// --- consumer ----------------------------------------------------------------------------------

const REST = 'rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';
export const CONSUMER_HEADER = `start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, ${REST}`;
export const CONSUMER_DETAILED_HEADER = `time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, ${REST}`;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Java's "yyyy-MM-dd HH:mm:ss:SSS", in local time. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}:${pad(d.getMilliseconds(), 3)}`;
}

export interface ConsumeStats {
  startMs: number;
  endMs: number;
  bytes: number;
  records: number;
  rebalanceMs: number;
}

function consumeFigures(s: ConsumeStats): string {
  const mb = s.bytes / MiB;
  const elapsedMs = s.endMs - s.startMs;
  const fetchMs = Math.max(0, elapsedMs - s.rebalanceMs);
  return [
    mb.toFixed(4),
    perSec(mb, elapsedMs).toFixed(4),
    String(s.records),
    perSec(s.records, elapsedMs).toFixed(4),
    String(Math.round(s.rebalanceMs)),
    String(Math.round(fetchMs)),
    perSec(mb, fetchMs).toFixed(4),
    perSec(s.records, fetchMs).toFixed(4),
  ].join(', ');
}

/** The summary row under CONSUMER_HEADER. */
export function consumerRow(s: ConsumeStats, time: (ms: number) => string = formatTimestamp): string {
  return `${time(s.startMs)}, ${time(s.endMs)}, ${consumeFigures(s)}`;
}

export interface ConsumeInterval {
  /** End of the interval (wall clock). */
  timeMs: number;
  /** Totals so far. */
  totalBytes: number;
  totalRecords: number;
  /** This interval. */
  bytes: number;
  records: number;
  elapsedMs: number;
  rebalanceMs: number;
}

/**
 * A --show-detailed-stats row under CONSUMER_DETAILED_HEADER. As in ConsumerPerformance, MB and
 * nMsg are running totals while the rates are the interval's.
 */
export function consumerDetailedRow(s: ConsumeInterval, time: (ms: number) => string = formatTimestamp): string {
  const fetchMs = Math.max(0, s.elapsedMs - s.rebalanceMs);
  return [
    time(s.timeMs),
    '0',
    (s.totalBytes / MiB).toFixed(4),
    perSec(s.bytes / MiB, s.elapsedMs).toFixed(4),
    String(s.totalRecords),
    perSec(s.records, s.elapsedMs).toFixed(4),
    String(Math.round(s.rebalanceMs)),
    String(Math.round(fetchMs)),
    perSec(s.bytes / MiB, fetchMs).toFixed(4),
    perSec(s.records, fetchMs).toFixed(4),
  ].join(', ');
}

// --- end to end ------------------------------------------------------------------------------

export function e2eLines(l: LatencySummary): string[] {
  return [
    `Avg latency: ${l.avgMs.toFixed(4)} ms`,
    `Percentiles: 50th = ${l.p50Ms.toFixed(3)}, 95th = ${l.p95Ms.toFixed(3)}, 99th = ${l.p99Ms.toFixed(3)}, 99.9th = ${l.p999Ms.toFixed(3)} ms (max ${l.maxMs.toFixed(3)} ms, ${l.count} records)`,
  ];
}

// --- TTY progress bar ------------------------------------------------------------------------

/** One line, redrawn with \r: "[=====>    ]  45% 90000/200000 records, 7001 rec/s, eta 15s". */
export function progressBar(done: number, total: number, ratePerSec: number, width = 30): string {
  const frac = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.floor(frac * width);
  const bar = '='.repeat(filled) + (filled < width ? '>' : '') + ' '.repeat(Math.max(0, width - filled - 1));
  const eta = ratePerSec > 0 ? `${Math.ceil((total - done) / ratePerSec)}s` : '?';
  return `[${bar}] ${String(Math.floor(frac * 100)).padStart(3)}% ${done}/${total} records, ${Math.round(ratePerSec)} rec/s, eta ${eta}`;
}
