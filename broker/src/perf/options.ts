// Option parsing for `minnow perf produce|consume|e2e`: the flags of kafka-producer-perf-test and
// sangrenel, durations such as 60s or 5m, acks all→-1, and --producer-props k=v (Java client names,
// so a command line copied from kafka-producer-perf-test keeps working). Pure: throws UsageError.
import { CompressionType } from '../protocol/compression';
import { bootstrapFrom, parse, UsageError } from '../args';
import { AUTH_USAGE, connectOptionsOf } from '../client-auth';
import type { SaslCredentials } from '../client/sasl';

export const COMPRESSION_NAMES: Record<string, CompressionType> = {
  none: CompressionType.None,
  gzip: CompressionType.Gzip,
  snappy: CompressionType.Snappy,
  lz4: CompressionType.Lz4,
  zstd: CompressionType.Zstd,
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration in ms: "250ms", "60s", "5m", "1h", "1.5s", or a bare number, read in `bareUnit`
 * (seconds for --duration, as both tools take; kafka-style ms flags pass "ms").
 */
export function parseDuration(flag: string, raw: string, bareUnit: 'ms' | 's' = 's'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`--${flag} ${raw}: expected a duration such as 500ms, 60s, 5m or 1h`);
  const ms = Number(m[1]) * UNIT_MS[m[2] ?? bareUnit]!;
  if (!(ms > 0)) throw new UsageError(`--${flag} ${raw}: must be more than zero`);
  return Math.round(ms);
}

/** acks as the protocol carries it: 0, 1 or -1 (all). */
export function parseAcks(raw: string): -1 | 0 | 1 {
  if (raw === 'all' || raw === '-1') return -1;
  if (raw === '0' || raw === '1') return Number(raw) as 0 | 1;
  throw new UsageError(`--acks ${raw}: expected 0, 1 or all`);
}

/** An integer option; `min` bounds it, and -1 may be allowed as "unlimited". */
export function parseInteger(flag: string, raw: string, min: number, allowMinusOne = false): number {
  const n = Number(raw.trim());
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || (n < min && !(allowMinusOne && n === -1))) {
    throw new UsageError(
      `--${flag} ${raw}: expected an integer >= ${min}${allowMinusOne ? ' (or -1 for unlimited)' : ''}`,
    );
  }
  return n;
}

export function parseCompression(raw: string): CompressionType {
  const c = COMPRESSION_NAMES[raw.toLowerCase()];
  if (c === undefined)
    throw new UsageError(`--compression ${raw}: expected ${Object.keys(COMPRESSION_NAMES).join('|')}`);
  return c;
}

export function parseHostPortOption(flag: string, raw: string): { host: string; port: number } {
  const m = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(raw.trim());
  if (!m || Number(m[2]) > 65535) throw new UsageError(`--${flag} ${raw}: expected HOST:PORT`);
  return { host: m[1]!, port: Number(m[2]) };
}

/** "k=v" pairs (one per argument, or several in one argument separated by spaces or commas). */
export function parseProps(flag: string, raws: readonly string[]): Map<string, string> {
  const props = new Map<string, string>();
  for (const raw of raws) {
    for (const pair of raw.split(/[\s,]+/).filter(Boolean)) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--${flag} ${pair}: expected KEY=VALUE`);
      props.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  return props;
}

/**
 * node:util parseArgs reads "-1" after an option as another option; Kafka's tools take
 * "--throughput -1", so a negative number after a long option is joined to it ("--throughput=-1").
 */
export function joinNegativeValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (/^--[a-z][a-z-]*$/.test(a) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * "--producer-props a=1 b=2" (kafka-producer-perf-test's form: several values after one flag)
 * becomes "--producer-props=a=1 --producer-props=b=2", which parseArgs reads as a multiple option.
 */
export function expandMultiValue(argv: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== `--${flag}`) {
      out.push(argv[i]!);
      continue;
    }
    let n = 0;
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) {
      out.push(`--${flag}=${argv[++i]}`);
      n++;
    }
    if (n === 0) out.push(argv[i]!); // let parseArgs report the missing value
  }
  return out;
}

type OptionsConfig = Parameters<typeof parse>[1];
type OptionValue = string | boolean | string[] | undefined;

/**
 * What every perf subcommand does first: Kafka-style argv fixed up, options parsed (with
 * --topic/-t), no positionals, --topic required. 'help' for --help.
 */
function parseToolArgs(
  argv: string[],
  options: OptionsConfig,
  usage: string,
  env: NodeJS.ProcessEnv,
):
  | {
      v: Record<string, OptionValue>;
      str: (k: string) => string | undefined;
      topic: string;
      sasl: SaslCredentials | undefined;
    }
  | 'help' {
  const { values, positionals } = parse(
    expandMultiValue(joinNegativeValues(argv), 'producer-props'),
    {
      topic: { type: 'string', short: 't' },
      user: { type: 'string' },
      'password-file': { type: 'string' },
      'sasl-mechanism': { type: 'string' },
      ...options,
    },
    `${usage}\n${AUTH_USAGE}`,
  );
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\n\n${usage}`);
  const v = values as Record<string, OptionValue>;
  const str = (k: string) => v[k] as string | undefined;
  const topic = str('topic');
  if (!topic) throw new UsageError(`--topic is required\n\n${usage}`);
  // The same login as every other client command (a deployed broker's listeners are sasl+ by default).
  return { v, str, topic, sasl: connectOptionsOf(v, env).sasl };
}

// --- perf produce ----------------------------------------------------------------------------

export interface ProduceOptions {
  bootstrap: string;
  /** --user/--password-file (MINNOW_USER/MINNOW_PASSWORD_FILE): log in on every connection. */
  sasl: SaslCredentials | undefined;
  topic: string;
  /** Stop after this many records (warm-up included), or after durationMs. Exactly one is set. */
  numRecords: number | undefined;
  durationMs: number | undefined;
  /** Random printable payloads of this size, or the payload file's records. Exactly one is set. */
  recordSize: number | undefined;
  payloadFile: string | undefined;
  payloadDelimiter: string;
  /** Records/s across all producers; -1 is unlimited. */
  throughput: number;
  clients: number;
  producers: number;
  acks: -1 | 0 | 1;
  batchSizeBytes: number;
  lingerMs: number;
  compression: CompressionType;
  /** Key range: record i gets key String(i % keys); 0 means unkeyed (sticky partitions). */
  keys: number;
  idempotent: boolean;
  warmupRecords: number;
  reportIntervalMs: number;
  noop: boolean;
  graphite: { host: string; port: number } | undefined;
  graphitePrefix: string;
  jsonFile: string | undefined;
  clientId: string;
  requestTimeoutMs: number;
  /** Partitions of the topic if the tool creates it. */
  partitions: number;
  /** --producer-props keys the tool does not use, reported as a warning. */
  ignoredProps: string[];
  /**
   * --transactional-id: every producer is transactional (KIP-98), hence idempotent; with several
   * producers each takes ID-0, ID-1, ... (one id is one producer: a second would fence the first).
   */
  transactionalId: string | undefined;
  /** --transaction-batches: Produce requests per transaction per producer, then EndTxn commit. */
  transactionBatches: number;
  /** transaction.timeout.ms the producers ask the coordinator for (--producer-props). */
  transactionTimeoutMs: number;
}

/** A transaction's batches when --transactional-id is given without --transaction-batches. */
export const DEFAULT_TRANSACTION_BATCHES = 1;

/** The Java producer settings --producer-props understands; others are reported as unused. */
export const PRODUCER_PROPS = [
  'bootstrap.servers',
  'acks',
  'batch.size',
  'linger.ms',
  'compression.type',
  'enable.idempotence',
  'client.id',
  'request.timeout.ms',
  'max.in.flight.requests.per.connection',
  'transactional.id',
  'transaction.timeout.ms',
] as const;

export const PRODUCE_USAGE = `usage: minnow perf produce --topic T (--num-records N | --duration 60s) (--record-size B | --payload-file F)
       [--throughput R] [--clients C] [--producers P] [--acks 0|1|all] [--batch-size B] [--linger-ms MS]
       [--compression none|gzip|snappy|lz4|zstd] [--keys K] [--idempotent] [--warmup-records N]
       [--report-interval 5s] [--noop] [--graphite HOST:PORT [--graphite-prefix P]] [--json FILE]
       [--producer-props k=v ...] [--bootstrap-server HOST:PORT] [--partitions N]
       [--transactional-id ID [--transaction-batches N]]
Sends records as fast as --throughput allows (records/s, -1 unlimited) from C connections x P
producers (each one request in flight). Latency is measured per record from the time the rate
schedule intended to send it, so a stalled broker shows up in the percentiles (no coordinated
omission). --noop generates and encodes only: the generator's ceiling.
--transactional-id makes every producer transactional (and so idempotent; ID-0, ID-1, ... when
there are several): each transaction adds its partitions (AddPartitionsToTxn), sends N Produce
requests (--transaction-batches, default ${DEFAULT_TRANSACTION_BATCHES}) and commits (EndTxn).`;

export function parseProduceArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ProduceOptions | 'help' {
  const parsed = parseToolArgs(
    argv,
    {
      'num-records': { type: 'string', short: 'n' },
      duration: { type: 'string', short: 'd' },
      'record-size': { type: 'string', short: 's' },
      'payload-file': { type: 'string' },
      'payload-delimiter': { type: 'string' },
      throughput: { type: 'string' },
      clients: { type: 'string' },
      producers: { type: 'string' },
      acks: { type: 'string' },
      'batch-size': { type: 'string' },
      'linger-ms': { type: 'string' },
      compression: { type: 'string' },
      keys: { type: 'string' },
      idempotent: { type: 'boolean' },
      'warmup-records': { type: 'string' },
      'report-interval': { type: 'string' },
      noop: { type: 'boolean' },
      graphite: { type: 'string' },
      'graphite-prefix': { type: 'string' },
      json: { type: 'string' },
      'producer-props': { type: 'string', multiple: true },
      partitions: { type: 'string' },
      'transactional-id': { type: 'string' },
      'transaction-batches': { type: 'string' },
    },
    PRODUCE_USAGE,
    env,
  );
  if (parsed === 'help') return 'help';
  const { v, str, topic, sasl } = parsed;

  // --producer-props first; explicit flags win over them.
  const props = parseProps('producer-props', (v['producer-props'] as string[] | undefined) ?? []);
  const prop = (k: (typeof PRODUCER_PROPS)[number]) => props.get(k);

  const numRaw = str('num-records');
  const durRaw = str('duration');
  if (numRaw !== undefined && durRaw !== undefined)
    throw new UsageError('--num-records and --duration are mutually exclusive: give one');
  if (numRaw === undefined && durRaw === undefined) throw new UsageError('give --num-records N or --duration 60s');
  const sizeRaw = str('record-size');
  const payloadFile = str('payload-file');
  if (sizeRaw !== undefined && payloadFile !== undefined)
    throw new UsageError('--record-size and --payload-file are mutually exclusive: give one');
  if (sizeRaw === undefined && payloadFile === undefined)
    throw new UsageError('give --record-size B or --payload-file F');
  if (str('payload-delimiter') !== undefined && payloadFile === undefined)
    throw new UsageError('--payload-delimiter needs --payload-file');

  const numRecords = numRaw === undefined ? undefined : parseInteger('num-records', numRaw, 1);
  const warmupRecords = parseInteger('warmup-records', str('warmup-records') ?? '0', 0);
  if (numRecords !== undefined && warmupRecords >= numRecords) {
    throw new UsageError(`--warmup-records ${warmupRecords} must be less than --num-records ${numRecords}`);
  }
  const throughput = parseInteger('throughput', str('throughput') ?? '-1', 1, true);
  const noop = v.noop === true;
  const graphiteRaw = str('graphite');
  if (str('graphite-prefix') !== undefined && graphiteRaw === undefined)
    throw new UsageError('--graphite-prefix needs --graphite HOST:PORT');

  const transactionalId = str('transactional-id') ?? prop('transactional.id');
  if (transactionalId === '') throw new UsageError('--transactional-id: give a non-empty id');
  const batchesRaw = str('transaction-batches');
  if (batchesRaw !== undefined && transactionalId === undefined)
    throw new UsageError('--transaction-batches needs --transactional-id ID');
  const idempotentProp = prop('enable.idempotence');
  if (transactionalId !== undefined && idempotentProp === 'false')
    throw new UsageError('--transactional-id needs an idempotent producer: drop enable.idempotence=false');
  const txnTimeout = prop('transaction.timeout.ms');

  const acksRaw = str('acks') ?? prop('acks') ?? 'all';
  // A transactional producer is idempotent (KIP-98), as Kafka's producer makes it.
  const idempotent = v.idempotent === true || idempotentProp === 'true' || transactionalId !== undefined;
  const acks = parseAcks(acksRaw);
  if (idempotent && acks !== -1)
    throw new UsageError(
      `${transactionalId !== undefined ? '--transactional-id' : '--idempotent'} needs --acks all (got ${acksRaw}), as Kafka's idempotent producer does`,
    );

  const reqTimeout = prop('request.timeout.ms');
  const maxInFlight = prop('max.in.flight.requests.per.connection');
  const opts: ProduceOptions = {
    bootstrap: bootstrapFrom(str('bootstrap-server') ?? prop('bootstrap.servers'), env),
    sasl,
    topic,
    numRecords,
    durationMs: durRaw === undefined ? undefined : parseDuration('duration', durRaw, 's'),
    recordSize: sizeRaw === undefined ? undefined : parseInteger('record-size', sizeRaw, 0),
    payloadFile,
    payloadDelimiter: str('payload-delimiter') ?? '\n',
    throughput,
    clients: parseInteger('clients', str('clients') ?? '1', 1),
    producers: parseInteger('producers', str('producers') ?? maxInFlight ?? '5', 1),
    acks,
    batchSizeBytes: parseInteger('batch-size', str('batch-size') ?? prop('batch.size') ?? '16384', 1),
    lingerMs: parseInteger('linger-ms', str('linger-ms') ?? prop('linger.ms') ?? '0', 0),
    compression: parseCompression(str('compression') ?? prop('compression.type') ?? 'none'),
    keys: parseInteger('keys', str('keys') ?? '0', 0),
    idempotent,
    warmupRecords,
    reportIntervalMs: parseDuration('report-interval', str('report-interval') ?? '5s', 's'),
    noop,
    graphite: graphiteRaw === undefined ? undefined : parseHostPortOption('graphite', graphiteRaw),
    graphitePrefix: str('graphite-prefix') ?? 'minnow.perf',
    jsonFile: str('json'),
    clientId: prop('client.id') ?? 'minnow-perf',
    requestTimeoutMs:
      reqTimeout === undefined ? 30_000 : parseInteger('producer-props request.timeout.ms', reqTimeout, 1),
    partitions: parseInteger('partitions', str('partitions') ?? '1', 1),
    ignoredProps: [],
    transactionalId,
    transactionBatches:
      batchesRaw === undefined ? DEFAULT_TRANSACTION_BATCHES : parseInteger('transaction-batches', batchesRaw, 1),
    transactionTimeoutMs:
      txnTimeout === undefined ? 60_000 : parseInteger('producer-props transaction.timeout.ms', txnTimeout, 1),
  };
  opts.ignoredProps = [...props.keys()].filter((k) => !(PRODUCER_PROPS as readonly string[]).includes(k));
  return opts;
}

// --- perf consume ----------------------------------------------------------------------------

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

// --- perf e2e --------------------------------------------------------------------------------

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
