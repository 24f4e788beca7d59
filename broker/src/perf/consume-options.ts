// `minnow perf consume`'s options, kafka-consumer-perf-test's flags. Pure: throws UsageError.
import { bootstrapFrom, UsageError } from '../args';
import type { SaslCredentials } from '../client/sasl';
import { parseDuration, parseInteger } from './option-values';
import { parseToolArgs } from './tool-args';

export interface ConsumeOptions {
  bootstrap: string;
  sasl: SaslCredentials | undefined;
  topic: string;
  /** Stop after this many records; undefined: at the high watermarks seen at start. */
  numRecords: number | undefined;
  group: string | undefined;
  fetchSizeBytes: number;
  fetchMaxWaitMs: number;
  /** Give up after this long without a record. */
  timeoutMs: number;
  fromLatest: boolean;
  reportIntervalMs: number;
  showDetailedStats: boolean;
  hideHeader: boolean;
  jsonFile: string | undefined;
  clientId: string;
}

export const CONSUME_USAGE = `usage: minnow perf consume --topic T [--num-records N] [--group G] [--fetch-size B]
       [--timeout 10s] [--from-latest] [--show-detailed-stats [--report-interval 5s]] [--hide-header]
       [--json FILE] [--bootstrap-server HOST:PORT]
Reads the topic from the beginning (or the end with --from-latest) and prints
kafka-consumer-perf-test's columns. Without --num-records it stops at the high watermarks seen at
start. --group joins a consumer group (rebalance.time.ms is the join); if the broker has no usable
group coordinator it says so and reads by assignment instead.`;

export function parseConsumeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ConsumeOptions | 'help' {
  const parsed = parseToolArgs(
    argv,
    {
      'num-records': { type: 'string', short: 'n' },
      messages: { type: 'string' },
      group: { type: 'string', short: 'g' },
      'fetch-size': { type: 'string' },
      'fetch-max-wait': { type: 'string' },
      timeout: { type: 'string' },
      'from-latest': { type: 'boolean' },
      'report-interval': { type: 'string' },
      'show-detailed-stats': { type: 'boolean' },
      'hide-header': { type: 'boolean' },
      json: { type: 'string' },
    },
    CONSUME_USAGE,
    env,
  );
  if (parsed === 'help') return 'help';
  const { v, str, topic, sasl } = parsed;
  if (str('num-records') !== undefined && str('messages') !== undefined)
    throw new UsageError('--num-records and --messages are the same option: give one');
  const n = str('num-records') ?? str('messages');
  if (str('report-interval') !== undefined && v['show-detailed-stats'] !== true)
    throw new UsageError('--report-interval needs --show-detailed-stats');
  return {
    bootstrap: bootstrapFrom(str('bootstrap-server'), env),
    sasl,
    topic,
    numRecords: n === undefined ? undefined : parseInteger('num-records', n, 1),
    group: str('group'),
    fetchSizeBytes: parseInteger('fetch-size', str('fetch-size') ?? String(1024 * 1024), 1),
    fetchMaxWaitMs: parseDuration('fetch-max-wait', str('fetch-max-wait') ?? '500ms', 'ms'),
    timeoutMs: parseDuration('timeout', str('timeout') ?? '10s', 'ms'),
    fromLatest: v['from-latest'] === true,
    reportIntervalMs: parseDuration('report-interval', str('report-interval') ?? '5s', 's'),
    showDetailedStats: v['show-detailed-stats'] === true,
    hideHeader: v['hide-header'] === true,
    jsonFile: str('json'),
    clientId: 'minnow-perf-consumer',
  };
}
