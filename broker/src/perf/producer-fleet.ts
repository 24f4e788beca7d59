// The producers of `minnow perf produce`: C clients (connections) x P producers each, every one
// with a connection per partition leader and, with --idempotent, its own producer id. With --noop
// the producers have no connection and the tool measures only itself. With --transactional-id
// every producer is transactional, with its own transactional id at the coordinator.
import { KafkaClient } from '../client/client';
import { KafkaClientError, KafkaConnection } from '../client/connection';
import { initIdempotentProducer } from '../client/idempotent-producer';
import {
  Coordinator,
  findTransactionCoordinator,
  initTransactions,
  TransactionalProducer,
} from '../client/transactions';
import { ErrorCode, errorName } from '../protocol/error-codes';
import { PerfIo, sleep } from './io';
import type { ProduceOptions } from './options';

/** A partition of the topic and its leader's node id (-1 with --noop). */
export interface Target {
  partition: number;
  leader: number;
}

/** One producer: at most one Produce request in flight per leader. */
export interface Producer {
  /** null with --noop. */
  conn: KafkaConnection | null;
  connsByLeader: Map<number, KafkaConnection>;
  producerId: bigint;
  producerEpoch: number;
  /** Next base sequence per partition (--idempotent). */
  sequences: Map<number, number>;
  /** Requests sent so far (paces the acks=0 barrier and --noop's yields). */
  sent: number;
  /** --transactional-id (none with --noop, which has no coordinator). */
  txn?: ProducerTransaction;
}

/** A transactional producer's coordinator and its current transaction. */
export interface ProducerTransaction {
  id: TransactionalProducer;
  coordinator: KafkaConnection;
  /** Partitions added to the open transaction; empty when none is open. */
  partitions: Set<number>;
  /** Produce requests sent in the open transaction (0: none open). */
  batches: number;
  /** A produce of the open transaction failed: it ends with an abort. */
  failed: boolean;
  /** Its acknowledged records' intended times, [ms, count], for the latency to commit. */
  pending: [number, number][];
  committed: number;
  aborted: number;
}

/** The transactional id of producer `index` of `count`: ID alone, else ID-0, ID-1, ... */
export const transactionalIdOf = (id: string, index: number, count: number): string =>
  count === 1 ? id : `${id}-${index}`;

/** Polls for the topic's leaders this many times (100 ms apart) after creating it. */
const LEADER_POLLS = 20;

export class ProducerFleet {
  readonly clients: KafkaClient[] = [];
  readonly producers: Producer[] = [];
  targets: Target[];

  constructor(
    private readonly opts: ProduceOptions,
    private readonly io: PerfIo,
  ) {
    this.targets = Array.from({ length: opts.partitions }, (_, partition) => ({ partition, leader: -1 }));
  }

  /** Connects every client and sets its producers up (creating the topic if it is missing). */
  async open(): Promise<void> {
    if (this.opts.noop) {
      for (let p = 0; p < this.opts.clients * this.opts.producers; p++) this.producers.push(noopProducer(this.opts, p));
      return;
    }
    for (let c = 0; c < this.opts.clients; c++) await this.openClient(c);
  }

  close(): void {
    for (const c of this.coordinators) if (c.owned) c.conn.close();
    for (const c of this.clients) c.close();
  }

  private readonly coordinators: Coordinator[] = [];

  private async openClient(index: number): Promise<void> {
    const { opts } = this;
    const client = new KafkaClient(opts.bootstrap, {
      clientId: opts.clientId,
      requestTimeoutMs: opts.requestTimeoutMs,
      ...(opts.sasl ? { sasl: opts.sasl } : {}),
    });
    this.clients.push(client);
    if (index === 0) this.targets = await topicTargets(client, opts, this.io);
    else await client.metadata([opts.topic]);
    const leaders = [...new Set(this.targets.map((t) => t.leader))];
    const connsByLeader = new Map<number, KafkaConnection>();
    for (const l of leaders) connsByLeader.set(l, await client.node(l));
    for (let p = 0; p < opts.producers; p++) {
      const producer: Producer = {
        conn: connsByLeader.get(leaders[0]!)!,
        connsByLeader,
        producerId: -1n,
        producerEpoch: -1,
        sequences: new Map(),
        sent: 0,
      };
      if (opts.transactionalId !== undefined) {
        const id = transactionalIdOf(opts.transactionalId, index * opts.producers + p, opts.clients * opts.producers);
        await this.initTransactional(client, producer, id);
      } else if (opts.idempotent) Object.assign(producer, await initProducerId(client));
      this.producers.push(producer);
    }
  }

  /** FindCoordinator (key type 1) and InitProducerId with the producer's transactional id. */
  private async initTransactional(client: KafkaClient, producer: Producer, transactionalId: string): Promise<void> {
    const coordinator = await findTransactionCoordinator(client, transactionalId, this.connectOptions);
    this.coordinators.push(coordinator);
    const id = await initTransactions(coordinator.conn, transactionalId, this.opts.transactionTimeoutMs);
    producer.producerId = id.producerId;
    producer.producerEpoch = id.producerEpoch;
    producer.txn = {
      id,
      coordinator: coordinator.conn,
      partitions: new Set(),
      batches: 0,
      failed: false,
      pending: [],
      committed: 0,
      aborted: 0,
    };
  }

  private get connectOptions() {
    return { clientId: this.opts.clientId, requestTimeoutMs: this.opts.requestTimeoutMs };
  }
}

function noopProducer(opts: ProduceOptions, index: number): Producer {
  return {
    conn: null,
    connsByLeader: new Map(),
    producerId: opts.idempotent ? BigInt(index) : -1n,
    producerEpoch: opts.idempotent ? 0 : -1,
    sequences: new Map(),
    sent: 0,
  };
}

async function initProducerId(client: KafkaClient): Promise<Pick<Producer, 'producerId' | 'producerEpoch'>> {
  const conn = await client.connect();
  const res = await initIdempotentProducer(conn);
  if (res.errorCode !== ErrorCode.NONE)
    throw new KafkaClientError(`InitProducerId failed: ${errorName(res.errorCode)}`, res.errorCode);
  return { producerId: res.producerId ?? -1n, producerEpoch: res.producerEpoch };
}

const targetsOf = (t: { partitions: { partition: number; leader: number }[] }): Target[] =>
  t.partitions.map((p) => ({ partition: p.partition, leader: p.leader }));

/** The topic's partitions and leaders; a missing topic is created with --partitions and waited for. */
async function topicTargets(client: KafkaClient, opts: ProduceOptions, io: PerfIo): Promise<Target[]> {
  try {
    return targetsOf(await client.topic(opts.topic));
  } catch (err) {
    if (!(err instanceof KafkaClientError) || err.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) throw err;
  }
  await createTopic(client, opts, io);
  return waitForLeaders(client, opts.topic);
}

async function createTopic(client: KafkaClient, opts: ProduceOptions, io: PerfIo): Promise<void> {
  try {
    await client.createTopic(opts.topic, opts.partitions, {});
    io.err(`created topic ${opts.topic} with ${opts.partitions} partition${opts.partitions === 1 ? '' : 's'}`);
  } catch (err) {
    if (!(err instanceof KafkaClientError) || err.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) throw err;
  }
}

async function waitForLeaders(client: KafkaClient, topic: string): Promise<Target[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      const t = await client.topic(topic);
      if (t.partitions.every((p) => p.leader >= 0)) return targetsOf(t);
    } catch (err) {
      if (attempt >= LEADER_POLLS) throw err;
    }
    await sleep(100);
  }
}
