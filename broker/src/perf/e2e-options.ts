// `minnow perf e2e`'s options: end-to-end latency with one record in flight. Pure: throws UsageError.
import { bootstrapFrom, UsageError } from '../args';
import type { SaslCredentials } from '../client/sasl';
import { parseAcks, parseDuration, parseInteger } from './option-values';
import { parseToolArgs } from './tool-args';

export interface E2eOptions {
  bootstrap: string;
  sasl: SaslCredentials | undefined;
  topic: string;
  numRecords: number;
  recordSize: number;
  acks: -1 | 1;
  warmupRecords: number;
  jsonFile: string | undefined;
  timeoutMs: number;
}

export const E2E_USAGE = `usage: minnow perf e2e --topic T [--num-records 1000] [--record-size 100] [--acks 1|all]
       [--warmup-records N] [--timeout 10s] [--json FILE] [--bootstrap-server HOST:PORT]
End-to-end latency with one message in flight: produce a record, wait until a (long-polling)
fetch on a second connection returns it, repeat. Prints the average and percentiles.`;

export function parseE2eArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): E2eOptions | 'help' {
  const parsed = parseToolArgs(
    argv,
    {
      'num-records': { type: 'string', short: 'n' },
      'record-size': { type: 'string', short: 's' },
      acks: { type: 'string' },
      'warmup-records': { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'string' },
    },
    E2E_USAGE,
    env,
  );
  if (parsed === 'help') return 'help';
  const { str, topic, sasl } = parsed;
  const acks = parseAcks(str('acks') ?? 'all');
  if (acks === 0)
    throw new UsageError('--acks 0 cannot be used for end-to-end latency: the producer needs the offset; use 1 or all');
  const numRecords = parseInteger('num-records', str('num-records') ?? '1000', 1);
  const warmupRecords = parseInteger('warmup-records', str('warmup-records') ?? '0', 0);
  if (warmupRecords >= numRecords)
    throw new UsageError(`--warmup-records ${warmupRecords} must be less than --num-records ${numRecords}`);
  return {
    bootstrap: bootstrapFrom(str('bootstrap-server'), env),
    sasl,
    topic,
    numRecords,
    recordSize: parseInteger('record-size', str('record-size') ?? '100', 1),
    acks,
    warmupRecords,
    jsonFile: str('json'),
    timeoutMs: parseDuration('timeout', str('timeout') ?? '10s', 'ms'),
  };
}
