// What the broker tells its operator: the log level, the metrics endpoint, request frames dumped
// for debugging.
import { LOG_LEVELS, LogLevel } from '../../logger';
import type { Endpoint } from '../listeners';
import { METRICS_LISTENER_FORM, parseMetricsListener } from '../metrics/metrics-listener';
import { nonEmpty, Setting } from './setting';

export interface DiagnosticSettings {
  logLevel: LogLevel;
  /** Debug: write every request frame to this folder (golden fixtures). */
  dumpFramesDir: string | undefined;
  /** Where the Prometheus endpoint (GET /metrics) listens; undefined: no endpoint (server/metrics). */
  metricsListener: Endpoint | undefined;
}

export const DIAGNOSTIC_SETTINGS = [
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    doc: 'error, warn, info or debug (debug logs every request)',
    default: 'info',
    expected: LOG_LEVELS.join('|'),
    parse: (v: string) =>
      (LOG_LEVELS as readonly string[]).includes(v.toLowerCase()) ? (v.toLowerCase() as LogLevel) : undefined,
  },
  {
    key: 'dumpFramesDir',
    env: 'MINNOW_DUMP_FRAMES',
    flag: 'dump-frames',
    doc: 'debug: write each request frame as hex into this folder',
    default: undefined,
    expected: 'a folder path',
    parse: nonEmpty,
  },
  // Broker metrics (server/metrics, issue 14): Prometheus text on a port of its own; off by default.
  {
    key: 'metricsListener',
    env: 'MINNOW_METRICS_LISTENER',
    flag: 'metrics-listener',
    doc: "HOST:PORT of an HTTP endpoint answering GET /metrics in Prometheus text format (request and error counts, bytes in/out, consumer group lag, database and volume size); never a Kafka listener's port. Unset: no endpoint",
    default: undefined,
    expected: METRICS_LISTENER_FORM,
    parse: parseMetricsListener,
  },
] as const satisfies readonly Setting<DiagnosticSettings>[];
