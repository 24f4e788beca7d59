// The load each scenario of the harness offers, as `minnow perf` arguments, and the figures the
// seed scenario derives from its median run. Pure: broker/test/perf/bench-scenarios.test.ts.
import type { ProduceSummary } from '../src/perf/producer';
import type { ClientConfig } from './results';

/** kafka-producer-perf-test's defaults (batch.size 16 KiB, 5 requests in flight), then tuned. */
export const CONFIGS_1K: ClientConfig[] = [
  { name: 'Kafka defaults: batch 16 KiB, 5 in flight', batchSize: 16384, producers: 5 },
  { name: 'batch 256 KiB, 2 in flight', batchSize: 262144, producers: 2 },
  { name: 'batch 1 MB, 2 in flight', batchSize: 1_000_000, producers: 2 },
];
export const CONFIGS_100: ClientConfig[] = [
  { name: 'batch 256 KiB, 2 in flight', batchSize: 262144, producers: 2 },
  { name: 'batch 1 MB, 3 in flight', batchSize: 1_000_000, producers: 3 },
];

/** The seed workload's rate: 7,000 x 1 KiB records/s. */
export const SEED_RATE = 7000;

export type Args = (string | number)[];

/** A broker's bootstrap address, or null for the tool alone (--noop). */
export type Bootstrap = string | null;

/** `payload`: a record size, or a payload file. */
export const produceArgs = (
  bootstrap: Bootstrap,
  topic: string,
  payload: number | string,
  c: ClientConfig,
  extra: Args,
): Args => [
  ...(bootstrap !== null ? ['--bootstrap-server', bootstrap] : ['--noop']),
  '--topic',
  topic,
  ...(typeof payload === 'number' ? ['--record-size', payload] : ['--payload-file', payload]),
  '--batch-size',
  c.batchSize,
  '--producers',
  c.producers,
  '--acks',
  'all',
  '--report-interval',
  '1h',
  ...extra,
];

/** As fast as the tool can, for `seconds`. */
export const maxRateArgs = (seconds: number): Args => ['--duration', `${seconds}s`, '--throughput', -1];

/** 1 KiB records at `rate`, acks=all, for a count (`--num-records`) or a time (`--duration`). */
export const pacedArgs = (
  bootstrap: string,
  topic: string,
  limit: { numRecords: number } | { durationS: number },
  rate: number,
  reportInterval = '1h',
  extra: Args = [],
): Args => [
  '--bootstrap-server',
  bootstrap,
  '--topic',
  topic,
  ...('numRecords' in limit ? ['--num-records', limit.numRecords] : ['--duration', `${limit.durationS}s`]),
  '--record-size',
  1024,
  '--throughput',
  rate,
  '--acks',
  'all',
  '--report-interval',
  reportInterval,
  ...extra,
];

/** The run with the median p99 (on a shared VM one run's p99 can be 3x the next one's). */
export function medianByP99<R extends { summary: ProduceSummary }>(runs: R[]): R {
  if (runs.length === 0) throw new Error('medianByP99: no runs to choose from');
  return [...runs].sort((a, b) => a.summary.latency.p99Ms - b.summary.latency.p99Ms)[Math.floor(runs.length / 2)]!;
}

const finiteOr0 = (n: number) => (Number.isFinite(n) ? n : 0);

/** What raw SQLite and a bare TCP server are paced at to compare with the seed run. */
export interface SeedFloorLoad {
  requestsPerSec: number;
  commitsPerSec: number;
  bytesPerCommit: number;
  /** A Produce request's bytes: its batch plus ~80 B of headers. */
  requestBytes: number;
}

/**
 * The broker's own commit count (group commit and pacing make it lower than the requests');
 * without it (a broker that did not log it), one commit per request.
 */
export function seedFloorLoad(seed: ProduceSummary, commits: number | undefined): SeedFloorLoad {
  const requests = Math.max(1, finiteOr0(seed.requests));
  const requestsPerSec = Math.round((requests * 1000) / seed.elapsedMs);
  return {
    requestsPerSec,
    commitsPerSec: commits ? Math.round((commits * 1000) / seed.elapsedMs) : requestsPerSec,
    bytesPerCommit: Math.round(seed.wireBytes / Math.max(1, commits ?? requests)),
    requestBytes: Math.round(seed.wireBytes / requests) + 80,
  };
}
