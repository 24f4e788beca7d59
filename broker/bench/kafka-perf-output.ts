// What Kafka's own load tools print, parsed: kafka-producer-perf-test (org.apache.kafka.tools.
// ProducerPerformance) and kafka-consumer-perf-test (ConsumerPerformance). Pure, so the bench's
// figures can be checked against lines the tools really print (broker/test/perf/peers.test.ts).

/** ProducerPerformance's summary line (Stats.printTotal). Latencies are whole ms, as the tool keeps them. */
export interface KafkaProducerPerfTotal {
  records: number;
  /** The line of the steady-state stats (after --warmup-records), not the whole run's. */
  steadyState: boolean;
  recordsPerSec: number;
  mbPerSec: number;
  avgMs: number;
  maxMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  p999Ms: number;
}

// printTotal's format is "%d%s records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency,
// %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.%n"; the records/sec field
// is "%.1f" in 4.1 and "%f" later, so any decimal is taken. The bench runs the JVM with
// -Duser.language=en so no locale puts a comma in a number.
const NUM = '(\\d+(?:\\.\\d+)?)';
const TOTAL_LINE = new RegExp(
  `^(\\d+)( steady state)? records sent, ${NUM} records/sec \\(${NUM} MB/sec\\), ${NUM} ms avg latency, ` +
    `${NUM} ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms 99th, (\\d+) ms 99\\.9th\\.$`,
);

/** The summary line of one line of output, or undefined (window lines, warnings, anything else). */
export function parseProducerPerfTotal(line: string): KafkaProducerPerfTotal | undefined {
  const m = TOTAL_LINE.exec(line.trim());
  if (!m) return undefined;
  const n = (i: number) => Number(m[i]);
  return {
    records: n(1),
    steadyState: m[2] !== undefined,
    recordsPerSec: n(3),
    mbPerSec: n(4),
    avgMs: n(5),
    maxMs: n(6),
    p50Ms: n(7),
    p95Ms: n(8),
    p99Ms: n(9),
    p999Ms: n(10),
  };
}

/**
 * The whole run's summary from the tool's output: the last summary line that is not the
 * steady-state one. Throws with the output's tail when there is none (the tool failed: a broker
 * that refused the records makes it print stack traces and no summary).
 */
export function producerPerfTotal(output: string): KafkaProducerPerfTotal {
  const totals = output
    .split('\n')
    .map(parseProducerPerfTotal)
    .filter((t): t is KafkaProducerPerfTotal => t !== undefined && !t.steadyState);
  const last = totals[totals.length - 1];
  if (!last)
    throw new Error(
      `kafka-producer-perf-test printed no summary line ("N records sent, ... ms 99.9th."); its output ends:\n${output.split('\n').slice(-15).join('\n')}`,
    );
  return last;
}

/** ConsumerPerformance's row (printed under its header, without --show-detailed-stats). */
export interface KafkaConsumerPerfRow {
  mb: number;
  mbPerSec: number;
  records: number;
  recordsPerSec: number;
  rebalanceMs: number;
  fetchMs: number;
  fetchMbPerSec: number;
  fetchRecordsPerSec: number;
}

const CONSUMER_HEADER =
  'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';

/** A row's ten fields: two times (yyyy-MM-dd HH:mm:ss:SSS), then eight numbers. */
function rowNumbers(line: string): number[] | undefined {
  const fields = line.split(',').map((f) => f.trim());
  const nums = fields.slice(2).map(Number);
  return /^\d{4}-\d\d-\d\d /.test(fields[0] ?? '') && nums.length === 8 && nums.every((x) => Number.isFinite(x))
    ? nums
    : undefined;
}

/**
 * The row under ConsumerPerformance's header: "start, end, MB, MB/s, records, records/s,
 * rebalance ms, fetch ms, fetch MB/s, fetch records/s". A warning may come between them (the
 * "Exiting before consuming the expected number of messages" of a --timeout): the row is then
 * still printed, with what was read.
 */
export function consumerPerfRow(output: string): KafkaConsumerPerfRow {
  const lines = output.split('\n').map((l) => l.trim());
  const h = lines.indexOf(CONSUMER_HEADER);
  const nums =
    h < 0
      ? undefined
      : lines
          .slice(h + 1)
          .map(rowNumbers)
          .find((x) => x !== undefined);
  if (!nums)
    throw new Error(
      `kafka-consumer-perf-test printed no result row under "${CONSUMER_HEADER.slice(0, 40)}..."; its output ends:\n${lines.slice(-15).join('\n')}`,
    );
  const [mb, mbPerSec, records, recordsPerSec, rebalanceMs, fetchMs, fetchMbPerSec, fetchRecordsPerSec] = nums as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { mb, mbPerSec, records, recordsPerSec, rebalanceMs, fetchMs, fetchMbPerSec, fetchRecordsPerSec };
}
