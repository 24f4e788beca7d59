// Transactions over the Kafka protocol (KIP-98, KIP-664's admin calls), for `minnow transactions`
// and the transactional `minnow perf produce`: ListTransactions and DescribeTransactions as
// Kafka's Admin sends them, and the producer's side (the transaction coordinator, InitProducerId
// with a transactional id, AddPartitionsToTxn, EndTxn) as TransactionManager.java does, with
// transaction version 1 (no KIP-890 part 2: minnow does not advertise transaction.version 2).
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type {
  AddPartitionsToTxnResponse,
  DescribeTransactionsResponse,
  EndTxnResponse,
  FindCoordinatorResponse,
  InitProducerIdResponse,
  ListTransactionsResponse,
} from '../protocol/messages';
import type { KafkaClient } from './client';
import { ConnectOptions, KafkaClientError, KafkaConnection } from './connection';

/** FindCoordinator's key type for a transactional id (0 is a group). */
const TRANSACTION_KEY_TYPE = 1;
/** Retriable coordinator answers are retried this many times, RETRY_BACKOFF_MS apart (bounded). */
const RETRIES = 50;
const RETRY_BACKOFF_MS = 20;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const failure = (what: string, code: number, message?: string | null) =>
  new KafkaClientError(`${what}: ${errorName(code)}${message ? `: ${message}` : ''}`, code);

/** Answers a coordinator gives while it cannot decide yet; the Java client retries them. */
const RETRIABLE: ReadonlySet<number> = new Set([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.CONCURRENT_TRANSACTIONS,
]);
/**
 * FindCoordinator also retries COORDINATOR_NOT_AVAILABLE, as the Java client does: Kafka answers it
 * while it creates __transaction_state on the first transactional request (a few seconds).
 */
const FIND_RETRIABLE: ReadonlySet<number> = new Set([...RETRIABLE, ErrorCode.COORDINATOR_NOT_AVAILABLE]);
const FIND_BACKOFF_MS = 100;

/** Sends until the answer's error is not retriable (at most RETRIES times). */
async function retrying<R>(
  send: () => Promise<R>,
  errorOf: (r: R) => number,
  retriable = RETRIABLE,
  backoffMs = RETRY_BACKOFF_MS,
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    if (!retriable.has(errorOf(res)) || attempt >= RETRIES) return res;
    await sleep(backoffMs);
  }
}

// --- admin -----------------------------------------------------------------------------------

export interface TransactionListing {
  transactionalId: string;
  /** The broker that answered (each lists the ids it coordinates). */
  coordinatorId: number;
  producerId: bigint;
  state: string;
}

export interface ListTransactionsFilters {
  /** Kafka's TransactionState names (Empty, Ongoing, ...); none: every state. */
  states?: readonly string[];
  producerIds?: readonly bigint[];
  /** Only transactions running longer than this (ms); ListTransactions v1 (KIP-994). */
  durationMs?: bigint;
}

/** ListTransactions on every broker of the cluster, as Admin.listTransactions().allByBrokerId(). */
export async function listTransactions(
  client: KafkaClient,
  filters: ListTransactionsFilters = {},
  connectOptions: ConnectOptions = {},
): Promise<{ transactions: TransactionListing[]; unknownStateFilters: string[] }> {
  const conn = await client.connect();
  const brokers = await brokersOf(client);
  const transactions: TransactionListing[] = [];
  const unknown = new Set<string>();
  for (const b of brokers) {
    const c = b.address === conn.address ? conn : await KafkaConnection.connect(b.host, b.port, connectOptions);
    try {
      // v1 carries the duration filter; without one any version will do (v0 brokers too).
      const v = c.version(ApiKey.ListTransactions, filters.durationMs !== undefined ? 1 : 0, 1);
      const res: ListTransactionsResponse = await c.send(ApiKey.ListTransactions, v, {
        stateFilters: [...(filters.states ?? [])],
        producerIdFilters: [...(filters.producerIds ?? [])],
        durationFilter: filters.durationMs ?? -1n,
      });
      if (res.errorCode !== ErrorCode.NONE) throw failure(`list transactions on broker ${b.nodeId}`, res.errorCode);
      for (const s of res.unknownStateFilters) unknown.add(s);
      for (const t of res.transactionStates)
        transactions.push({
          transactionalId: t.transactionalId,
          coordinatorId: b.nodeId,
          producerId: t.producerId,
          state: t.transactionState,
        });
    } finally {
      if (c !== conn) c.close();
    }
  }
  transactions.sort((a, b) => a.transactionalId.localeCompare(b.transactionalId));
  return { transactions, unknownStateFilters: [...unknown] };
}

async function brokersOf(
  client: KafkaClient,
): Promise<{ nodeId: number; host: string; port: number; address: string }[]> {
  const conn = await client.connect();
  const res: { brokers: { nodeId: number; host: string; port: number }[] } = await conn.send(
    ApiKey.Metadata,
    conn.version(ApiKey.Metadata, 1, 12),
    { topics: [], allowAutoTopicCreation: false },
  );
  return res.brokers.map((b) => ({ ...b, address: `${b.host}:${b.port}` }));
}

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

export interface TransactionDescription {
  coordinatorId: number;
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  state: string;
  transactionTimeoutMs: number;
  /** null outside a transaction (the broker sends -1). */
  transactionStartTimeMs: bigint | null;
  /** Sorted by topic, then partition. */
  topicPartitions: TopicPartitionRef[];
}

/** One id's description, or the error its coordinator (or FindCoordinator) answered. */
export type DescribeResult =
  | { transactionalId: string; description: TransactionDescription }
  | { transactionalId: string; errorCode: number; error: string };

/** DescribeTransactions for each id at its coordinator, as Admin.describeTransactions(). */
export async function describeTransactions(
  client: KafkaClient,
  transactionalIds: readonly string[],
  connectOptions: ConnectOptions = {},
): Promise<DescribeResult[]> {
  const out: DescribeResult[] = [];
  for (const id of transactionalIds) {
    let coord: Coordinator;
    try {
      coord = await findTransactionCoordinator(client, id, connectOptions);
    } catch (err) {
      const code = err instanceof KafkaClientError ? err.errorCode : undefined;
      if (code === undefined) throw err;
      out.push({ transactionalId: id, errorCode: code, error: (err as Error).message });
      continue;
    }
    try {
      const v = coord.conn.version(ApiKey.DescribeTransactions, 0, 0);
      const res = await retrying<DescribeTransactionsResponse>(
        () => coord.conn.send(ApiKey.DescribeTransactions, v, { transactionalIds: [id] }),
        (r) => r.transactionStates[0]?.errorCode ?? ErrorCode.NONE,
      );
      const s = res.transactionStates[0];
      if (!s) throw new KafkaClientError(`describe transaction ${id}: the coordinator answered nothing for it`);
      if (s.errorCode !== ErrorCode.NONE) {
        out.push({
          transactionalId: id,
          errorCode: s.errorCode,
          error: failure(`describe transaction ${id}`, s.errorCode).message,
        });
        continue;
      }
      out.push({
        transactionalId: id,
        description: {
          coordinatorId: coord.nodeId,
          transactionalId: s.transactionalId,
          producerId: s.producerId,
          producerEpoch: s.producerEpoch,
          state: s.transactionState,
          transactionTimeoutMs: s.transactionTimeoutMs,
          transactionStartTimeMs: s.transactionStartTimeMs < 0n ? null : s.transactionStartTimeMs,
          topicPartitions: s.topics
            .flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
            .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition),
        },
      });
    } finally {
      if (coord.owned) coord.conn.close();
    }
  }
  return out;
}

// --- the producer's side ---------------------------------------------------------------------

export interface Coordinator {
  nodeId: number;
  conn: KafkaConnection;
  /** The connection was opened for the coordinator (not the bootstrap one): the caller closes it. */
  owned: boolean;
}

/** FindCoordinator key type 1: a connection to the transactional id's coordinator. */
export async function findTransactionCoordinator(
  client: KafkaClient,
  transactionalId: string,
  connectOptions: ConnectOptions = {},
): Promise<Coordinator> {
  const conn = await client.connect();
  // v1 is the first with key types (transactions need it).
  const v = conn.version(ApiKey.FindCoordinator, 1, 6);
  const res = await retrying<FindCoordinatorResponse>(
    () =>
      conn.send(
        ApiKey.FindCoordinator,
        v,
        v >= 4
          ? { keyType: TRANSACTION_KEY_TYPE, coordinatorKeys: [transactionalId] }
          : { key: transactionalId, keyType: TRANSACTION_KEY_TYPE },
      ),
    (r) => (v >= 4 ? r.coordinators![0]!.errorCode! : r.errorCode!),
    FIND_RETRIABLE,
    FIND_BACKOFF_MS,
  );
  const r =
    v >= 4
      ? res.coordinators![0]!
      : {
          errorCode: res.errorCode!,
          errorMessage: res.errorMessage,
          nodeId: res.nodeId!,
          host: res.host!,
          port: res.port!,
        };
  if (r.errorCode !== ErrorCode.NONE)
    throw failure(`find the coordinator of transactional id ${transactionalId}`, r.errorCode!, r.errorMessage);
  if (`${r.host}:${r.port}` === conn.address) return { nodeId: r.nodeId!, conn, owned: false };
  return { nodeId: r.nodeId!, conn: await KafkaConnection.connect(r.host!, r.port!, connectOptions), owned: true };
}

/** A transactional producer's identity, as every transactional request names it. */
export interface TransactionalProducer {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
}

/**
 * InitProducerId with a transactional id: its producer id and a new epoch (the previous producer
 * with this id is fenced, its open transaction aborted by the coordinator).
 */
export async function initTransactions(
  coordinator: KafkaConnection,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<TransactionalProducer> {
  const v = coordinator.version(ApiKey.InitProducerId, 0, 4);
  const res = await retrying<InitProducerIdResponse>(
    () =>
      coordinator.send(ApiKey.InitProducerId, v, {
        transactionalId,
        transactionTimeoutMs,
        producerId: -1n,
        producerEpoch: -1,
      }),
    (r) => r.errorCode,
  );
  if (res.errorCode !== ErrorCode.NONE) throw failure(`InitProducerId for ${transactionalId}`, res.errorCode);
  return { transactionalId, producerId: res.producerId ?? -1n, producerEpoch: res.producerEpoch };
}

/**
 * AddPartitionsToTxn (v0-3, the client's versions; v4+ is the brokers' KIP-890 verification):
 * the partitions join the transaction before the first batch to them.
 */
export async function addPartitionsToTxn(
  coordinator: KafkaConnection,
  producer: TransactionalProducer,
  topic: string,
  partitions: readonly number[],
): Promise<void> {
  const v = coordinator.version(ApiKey.AddPartitionsToTxn, 0, 3);
  const firstError = (r: AddPartitionsToTxnResponse) => {
    for (const t of r.resultsByTopicV3AndBelow ?? [])
      for (const p of t.resultsByPartition) if (p.partitionErrorCode !== ErrorCode.NONE) return p;
    return undefined;
  };
  const res = await retrying<AddPartitionsToTxnResponse>(
    () =>
      coordinator.send(ApiKey.AddPartitionsToTxn, v, {
        v3AndBelowTransactionalId: producer.transactionalId,
        v3AndBelowProducerId: producer.producerId,
        v3AndBelowProducerEpoch: producer.producerEpoch,
        v3AndBelowTopics: [{ name: topic, partitions: [...partitions] }],
      }),
    (r) => firstError(r)?.partitionErrorCode ?? ErrorCode.NONE,
  );
  const bad = firstError(res);
  if (bad)
    throw failure(
      `add ${topic}/${bad.partitionIndex} to transaction ${producer.transactionalId}`,
      bad.partitionErrorCode,
    );
}

/** EndTxn (v0-4; v5 is transaction version 2): commit or abort the ongoing transaction. */
export async function endTxn(
  coordinator: KafkaConnection,
  producer: TransactionalProducer,
  commit: boolean,
): Promise<void> {
  const v = coordinator.version(ApiKey.EndTxn, 0, 4);
  const res = await retrying<EndTxnResponse>(
    () =>
      coordinator.send(ApiKey.EndTxn, v, {
        transactionalId: producer.transactionalId,
        producerId: producer.producerId,
        producerEpoch: producer.producerEpoch,
        committed: commit,
      }),
    (r) => r.errorCode,
  );
  if (res.errorCode !== ErrorCode.NONE)
    throw failure(`${commit ? 'commit' : 'abort'} transaction ${producer.transactionalId}`, res.errorCode);
}
