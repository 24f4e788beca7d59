// `minnow perf produce`'s options: the flags of kafka-producer-perf-test and sangrenel, and
// --producer-props k=v with the Java client's names, so a command line copied from
// kafka-producer-perf-test keeps working. Pure: throws UsageError.
import { CompressionType } from '../protocol/compression';
import { bootstrapFrom, UsageError } from '../args';
import type { SaslCredentials } from '../client/sasl';
import {
  parseAcks,
  parseCompression,
  parseDuration,
  parseHostPortOption,
  parseInteger,
  parseProps,
} from './option-values';
import { parseToolArgs } from './tool-args';

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
