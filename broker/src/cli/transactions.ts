// `minnow transactions list|describe`: what kafka-transactions.sh list|describe print (the same
// columns, tab-separated and padded as its ToolsUtils.prettyPrintTable), over ListTransactions and
// DescribeTransactions (KIP-664), so it works against minnow or any Kafka broker. --json for scripts.
import { KafkaClient } from '../client/client';
import { KafkaClientError } from '../client/connection';
import {
  describeTransactions,
  listTransactions,
  ListTransactionsFilters,
  TransactionDescription,
} from '../client/transactions';
import { bootstrapFrom, parse, UsageError } from '../args';
import { AUTH_USAGE, connectOptionsOf } from '../client-auth';

const USAGE = `usage:
  minnow transactions list [--state S ...] [--producer-id ID ...] [--duration-filter MS] [--json]
      every transactional id: TransactionalId, Coordinator, ProducerId, TransactionState
      --state: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, ...
      --duration-filter MS: only transactions open longer than MS (a negative MS: all)
  minnow transactions describe --transactional-id ID [--json]
      CoordinatorId, TransactionalId, ProducerId, ProducerEpoch, TransactionState,
      TransactionTimeoutMs, CurrentTransactionStartTimeMs, TransactionDurationMs, TopicPartitions
options: --bootstrap-server HOST:PORT (default MINNOW_BOOTSTRAP_SERVER or localhost:9092)
${AUTH_USAGE}`;

export const LIST_HEADERS = ['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState'];
export const DESCRIBE_HEADERS = [
  'CoordinatorId',
  'TransactionalId',
  'ProducerId',
  'ProducerEpoch',
  'TransactionState',
  'TransactionTimeoutMs',
  'CurrentTransactionStartTimeMs',
  'TransactionDurationMs',
  'TopicPartitions',
];

export interface TransactionsCommandIo {
  bootstrap: string;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Wall clock (ms), for TransactionDurationMs. */
  now: () => number;
}

/** `minnow transactions ...` as wired in main.ts. */
export function transactionsCommand(argv: string[]): Promise<number> {
  return runTransactionsCommand(argv, {
    bootstrap: bootstrapFrom(undefined, process.env),
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    now: Date.now,
  });
}

/**
 * kafka-transactions.sh's table: each cell padded to its column's width, every cell followed by a
 * tab (ToolsUtils.prettyPrintTable).
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (row: readonly string[]) => row.map((cell, i) => `${cell.padEnd(widths[i]!)}\t`).join('');
  return [headers, ...rows].map(line).join('\n');
}

/** A described transaction as kafka-transactions.sh describe prints its row. */
export function describeRow(d: TransactionDescription, nowMs: number): string[] {
  const start = d.transactionStartTimeMs;
  return [
    String(d.coordinatorId),
    d.transactionalId,
    String(d.producerId),
    String(d.producerEpoch),
    d.state,
    String(d.transactionTimeoutMs),
    start === null ? 'None' : String(start),
    start === null ? 'None' : String(BigInt(nowMs) - start),
    d.topicPartitions.map((tp) => `${tp.topic}-${tp.partition}`).join(','),
  ];
}

function parseProducerId(raw: string): bigint {
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`--producer-id ${raw}: expected a producer id >= 0`);
  return BigInt(raw.trim());
}

function parseDurationFilter(raw: string | undefined): bigint | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`--duration-filter ${raw}: expected milliseconds`);
  const ms = BigInt(raw.trim());
  // kafka-transactions.sh: "if < 0, all transactions will be returned".
  return ms < 0n ? undefined : ms;
}

/** "--duration-filter -1" as parseArgs reads it: one argument. */
const joinNegative = (argv: string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--duration-filter' && /^-\d+$/.test(argv[i + 1] ?? '')) out.push(`--duration-filter=${argv[++i]}`);
    else out.push(argv[i]!);
  }
  return out;
};

/** Runs one transactions command; `--bootstrap-server` in argv overrides io.bootstrap. Returns the exit code. */
export async function runTransactionsCommand(argv: string[], io: TransactionsCommandIo): Promise<number> {
  const { values, positionals } = parse(
    joinNegative(argv),
    {
      state: { type: 'string', multiple: true },
      'producer-id': { type: 'string', multiple: true },
      'duration-filter': { type: 'string' },
      'transactional-id': { type: 'string' },
      json: { type: 'boolean' },
    },
    USAGE,
  );
  const [action, extra] = positionals;
  if (values.help || !action) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"\n\n${USAGE}`);
  const json = values.json === true;
  const connectOptions = connectOptionsOf(values);
  const bootstrap = (values['bootstrap-server'] as string | undefined) ?? io.bootstrap;

  switch (action) {
    case 'list': {
      if (values['transactional-id'] !== undefined)
        throw new UsageError(`list takes no --transactional-id (describe does)\n\n${USAGE}`);
      const filters: ListTransactionsFilters = {
        states: (values.state as string[] | undefined) ?? [],
        producerIds: ((values['producer-id'] as string[] | undefined) ?? []).map(parseProducerId),
        durationMs: parseDurationFilter(values['duration-filter'] as string | undefined),
      };
      const client = new KafkaClient(bootstrap, connectOptions);
      try {
        const { transactions, unknownStateFilters } = await listTransactions(client, filters, connectOptions);
        if (unknownStateFilters.length > 0)
          io.err(`warning: the broker does not know the state(s) ${unknownStateFilters.join(', ')}`);
        if (json)
          io.out(
            JSON.stringify(
              transactions.map((t) => ({ ...t, producerId: Number(t.producerId) })),
              null,
              2,
            ),
          );
        else
          io.out(
            formatTable(
              LIST_HEADERS,
              transactions.map((t) => [t.transactionalId, String(t.coordinatorId), String(t.producerId), t.state]),
            ),
          );
        return 0;
      } catch (err) {
        return failed(io, 'Failed to list transactions', err);
      } finally {
        client.close();
      }
    }
    case 'describe': {
      const id = values['transactional-id'] as string | undefined;
      if (id === undefined) throw new UsageError(`describe needs --transactional-id ID\n\n${USAGE}`);
      for (const f of ['state', 'producer-id', 'duration-filter'] as const)
        if (values[f] !== undefined) throw new UsageError(`describe takes no --${f} (list does)\n\n${USAGE}`);
      const client = new KafkaClient(bootstrap, connectOptions);
      try {
        const [r] = await describeTransactions(client, [id], connectOptions);
        if (!r || !('description' in r)) {
          io.err(`Failed to describe transaction state of transactional-id \`${id}\`: ${r?.error ?? 'no answer'}`);
          return 1;
        }
        const d = r.description;
        if (json)
          io.out(
            JSON.stringify(
              {
                ...d,
                producerId: Number(d.producerId),
                transactionStartTimeMs: d.transactionStartTimeMs === null ? null : Number(d.transactionStartTimeMs),
              },
              null,
              2,
            ),
          );
        else io.out(formatTable(DESCRIBE_HEADERS, [describeRow(d, io.now())]));
        return 0;
      } catch (err) {
        return failed(io, `Failed to describe transaction state of transactional-id \`${id}\``, err);
      } finally {
        client.close();
      }
    }
    default:
      throw new UsageError(`unknown transactions action "${action}"\n\n${USAGE}`);
  }
}

/** A broker's refusal or an unreachable broker: one line on stderr, exit code 1. */
function failed(io: TransactionsCommandIo, what: string, err: unknown): number {
  if (!(err instanceof KafkaClientError)) throw err;
  io.err(`${what}: ${err.message}`);
  return 1;
}
