// `minnow perf produce`: C connections x P producers, each with one Produce request in flight,
// drawing records from one shared schedule (rate-limiter.ts). Latency of a record is its ack time
// minus the time the schedule intended to send it; the time from the request's write to its ack
// ("service time", what tools with coordinated omission report) is kept alongside for contrast.
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { ProduceResponse } from '../protocol/messages';
import { addPartitionsToTxn, endTxn } from '../client/transactions';
import type { LatencySummary } from './histogram';
import { PerfIo, sleep } from './io';
import type { ProduceOptions } from './options';
import { makePayloads, Payloads, payloadsFromFile, randomPayloads, recordsPerBatch } from './payload';
import { ClaimEncoder, PartitionBatch } from './produce-batches';
import { ProduceCounters } from './produce-counters';
import { ProduceReporter } from './produce-reporter';
import { Producer, ProducerFleet } from './producer-fleet';
import { Claim, RateController, Schedule } from './rate-limiter';
import { MiB, producerFinalLine } from './report';

export { processIo } from './io';
export type { PerfIo } from './io';

/** After a --duration run ends, records still queued get this long to be sent. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** With acks=0 nothing is answered, so every few requests a producer waits for an ApiVersions
 * round trip: the broker answers in order, so that bounds what sits in socket buffers. */
const ACKS0_BARRIER_EVERY = 8;
/** With --noop a producer yields to the event loop every few "requests", so the timers run. */
const NOOP_YIELD_EVERY = 4;

export interface ProduceSummary {
  tool: 'minnow perf produce';
  startedAt: string;
  topic: string;
  noop: boolean;
  acks: number;
  compression: number;
  throughputTarget: number;
  recordSize: number;
  /** Acknowledged records (after warm-up) and their key+value bytes. */
  records: number;
  bytes: number;
  /** Batch bytes on the wire (compressed), all records. */
  wireBytes: number;
  requests: number;
  errors: number;
  firstError: string | null;
  /** Records a --duration run could not send within DRAIN_TIMEOUT_MS of its end. */
  abandoned: number;
  warmupRecords: number;
  elapsedMs: number;
  recordsPerSec: number;
  mbPerSec: number;
  latency: LatencySummary;
  serviceLatency: LatencySummary;
  /**
   * --transactional-id: from each record's intended send time to its transaction's commit, when a
   * read_committed consumer can have it; null otherwise.
   */
  commitLatency: LatencySummary | null;
  finalLine: string;
  /** --transactional-id runs: transactions ended, over all producers; null otherwise. */
  transactions: TransactionCounts | null;
}

export interface TransactionCounts {
  transactionalId: string;
  batchesPerTransaction: number;
  committed: number;
  aborted: number;
}

const commitLine = (l: LatencySummary) =>
  `${l.avgMs.toFixed(2)} ms avg, ${l.p50Ms.toFixed(2)} ms 50th, ${l.p99Ms.toFixed(2)} ms 99th, ${l.maxMs.toFixed(2)} ms max`;

/** Payloads from --payload-file or random ones of --record-size, keyed by --keys. */
function loadPayloads(opts: ProduceOptions): Payloads {
  const values =
    opts.payloadFile !== undefined
      ? payloadsFromFile(opts.payloadFile, opts.payloadDelimiter)
      : randomPayloads(opts.recordSize ?? 0);
  return makePayloads(values, opts.keys);
}

export async function runProducePerf(opts: ProduceOptions, io: PerfIo): Promise<ProduceSummary> {
  const payloads = loadPayloads(opts);
  for (const k of opts.ignoredProps) io.err(`warning: --producer-props ${k} is not used by minnow perf`);
  const fleet = new ProducerFleet(opts, io);
  let run: ProducePerfRun | undefined;
  try {
    await fleet.open();
    run = ProducePerfRun.start(opts, io, fleet, payloads);
    await run.produce();
    return run.finish();
  } finally {
    fleet.close();
    await run?.close();
  }
}

/**
 * One run over an open fleet: start() begins the clock and the reporting, produce() runs every
 * producer until the schedule is done, finish() prints the final line and returns the summary.
 */
export class ProducePerfRun {
  private readonly counters: ProduceCounters;
  private readonly rate: RateController;
  private readonly reporter: ProduceReporter;
  private readonly encoder: ClaimEncoder;
  /** The first producer's error: the others stop at their next step. */
  private failure: Error | undefined;

  private constructor(
    private readonly opts: ProduceOptions,
    private readonly io: PerfIo,
    private readonly fleet: ProducerFleet,
    private readonly payloads: Payloads,
    private readonly startedAt: string,
    startMs: number,
  ) {
    const schedule = new Schedule({
      ratePerSec: opts.throughput,
      totalRecords: opts.numRecords ?? Infinity,
      startMs,
      endMs: opts.durationMs === undefined ? Infinity : startMs + opts.durationMs,
    });
    const perBatch = recordsPerBatch(opts.batchSizeBytes, payloads.meanValueBytes + payloads.meanKeyBytes);
    this.rate = new RateController(schedule, {
      perBatch,
      lingerMs: opts.lingerMs,
      durationMs: opts.durationMs,
      drainMs: DRAIN_TIMEOUT_MS,
    });
    this.counters = new ProduceCounters(startMs, opts.warmupRecords);
    this.reporter = new ProduceReporter(opts, io, this.counters, startMs);
    this.encoder = new ClaimEncoder(payloads, fleet.targets, opts);
  }

  static start(opts: ProduceOptions, io: PerfIo, fleet: ProducerFleet, payloads: Payloads): ProducePerfRun {
    const startMs = io.now();
    const run = new ProducePerfRun(opts, io, fleet, payloads, new Date(io.wallNow()).toISOString(), startMs);
    run.reporter.start();
    return run;
  }

  /** Runs every producer to the end of the schedule (or the first failure, rethrown). */
  async produce(): Promise<void> {
    await Promise.all(
      this.fleet.producers.map((p) =>
        this.runProducer(p).catch((err: Error) => {
          this.failure ??= err;
        }),
      ),
    );
    if (this.failure) throw this.failure;
    this.counters.abandonUnsent(this.rate.schedule, this.io.now());
    this.reporter.finish();
  }

  /** Prints the final line (and what failed or was abandoned) and returns the summary. */
  finish(): ProduceSummary {
    const c = this.counters;
    const elapsedMs = c.elapsedMs();
    const latency = c.latency.summary();
    const finalLine = producerFinalLine(c.records, c.bytes, elapsedMs, latency);
    this.io.out(finalLine);
    const txns = this.transactionCounts();
    if (txns)
      this.io.out(
        `${txns.committed} transactions committed, ${txns.aborted} aborted (${txns.batchesPerTransaction} batch${txns.batchesPerTransaction === 1 ? '' : 'es'} each); latency to commit ${commitLine(this.counters.commit.summary())}`,
      );
    if (c.errors > 0) this.io.err(`${c.errors} records failed; first error: ${c.firstError}`);
    if (c.abandoned > 0)
      this.io.err(
        `${c.abandoned} records could not be sent within ${DRAIN_TIMEOUT_MS / 1000}s of the end; the percentiles count them at the time they had waited`,
      );
    return this.summary(elapsedMs, latency, finalLine);
  }

  async close(): Promise<void> {
    await this.reporter.close();
  }

  private async runProducer(producer: Producer): Promise<void> {
    while (!this.failure) {
      const step = this.rate.next(this.io.now());
      if (step === 'stop') break;
      if ('waitMs' in step) await sleep(step.waitMs);
      else await this.sendClaim(producer, step.claim);
    }
    const txn = producer.txn;
    if (!txn || txn.batches === 0) return;
    // The last transaction is committed even if it has fewer batches than --transaction-batches;
    // after a failure it is aborted (best effort: else the broker's timeout aborts it).
    if (!this.failure) await this.endTransaction(producer);
    else if (producer.conn) await endTxn(txn.coordinator, txn.id, false).catch(() => {});
  }

  private async sendClaim(producer: Producer, claim: Claim): Promise<void> {
    const batches = this.encoder.encode(producer, claim, BigInt(Math.round(this.io.wallNow())));
    for (const b of batches) this.counters.wireBytes += b.batch.length;
    if (producer.txn) await this.addPartitions(producer, batches);
    const sendMs = this.io.now();
    const errorsOf = await this.send(producer, batches);
    const ackMs = this.io.now();
    this.counters.answeredAt(ackMs);
    for (const b of batches) {
      const error = errorsOf.get(b.target.partition);
      if (error === undefined) {
        this.counters.acknowledged(b, claim, this.rate.schedule, ackMs, ackMs - sendMs);
        if (producer.txn)
          producer.txn.pending.push(...this.counters.intendedTimes(b.indexes, claim, this.rate.schedule));
      } else this.counters.failed(b.indexes.length, `produce to ${this.opts.topic}/${b.target.partition}: ${error}`);
    }
    this.rate.schedule.release(claim);
    if (producer.txn) {
      if (errorsOf.size > 0) producer.txn.failed = true;
      if (++producer.txn.batches >= this.opts.transactionBatches) await this.endTransaction(producer);
    }
  }

  /** AddPartitionsToTxn for the partitions the open transaction has not written to yet (KIP-98). */
  private async addPartitions(producer: Producer, batches: PartitionBatch[]): Promise<void> {
    const txn = producer.txn!;
    const added = [...new Set(batches.map((b) => b.target.partition))].filter((p) => !txn.partitions.has(p));
    if (added.length === 0 || !producer.conn) return;
    await addPartitionsToTxn(txn.coordinator, txn.id, this.opts.topic, added);
    for (const p of added) txn.partitions.add(p);
  }

  /** EndTxn: commit, or abort when a produce of the transaction failed; the next claim opens another. */
  private async endTransaction(producer: Producer): Promise<void> {
    const txn = producer.txn!;
    const commit = !txn.failed;
    if (producer.conn) await endTxn(txn.coordinator, txn.id, commit);
    if (commit) {
      txn.committed++;
      this.counters.committed(txn.pending, this.io.now());
    } else txn.aborted++;
    txn.pending = [];
    txn.partitions.clear();
    txn.batches = 0;
    txn.failed = false;
  }

  /** Sends the batches, one Produce request per leader; returns the failed partitions' errors. */
  private async send(producer: Producer, batches: PartitionBatch[]): Promise<Map<number, string>> {
    const errorsOf = new Map<number, string>();
    if (!producer.conn) {
      this.counters.requests++;
      if (++producer.sent % NOOP_YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      return errorsOf;
    }
    const byLeader = new Map<number, PartitionBatch[]>();
    for (const b of batches) {
      let list = byLeader.get(b.target.leader);
      if (!list) byLeader.set(b.target.leader, (list = []));
      list.push(b);
    }
    await Promise.all([...byLeader].map(([leader, list]) => this.sendToLeader(producer, leader, list, errorsOf)));
    return errorsOf;
  }

  private async sendToLeader(
    producer: Producer,
    leader: number,
    list: PartitionBatch[],
    errorsOf: Map<number, string>,
  ): Promise<void> {
    const conn = producer.connsByLeader.get(leader) ?? producer.conn!;
    const v = conn.version(ApiKey.Produce, 3, 9);
    const body = {
      transactionalId: producer.txn?.id.transactionalId ?? null,
      acks: this.opts.acks,
      timeoutMs: this.opts.requestTimeoutMs,
      topicData: [
        { name: this.opts.topic, partitionData: list.map((b) => ({ index: b.target.partition, records: b.batch })) },
      ],
    };
    this.counters.requests++;
    if (this.opts.acks === 0) {
      await conn.send(ApiKey.Produce, v, body, false);
      if (++producer.sent % ACKS0_BARRIER_EVERY === 0) await conn.send(ApiKey.ApiVersions, 0, {});
      return;
    }
    const res: ProduceResponse = await conn.send(ApiKey.Produce, v, body);
    for (const t of res.responses) {
      for (const pr of t.partitionResponses) {
        if (pr.errorCode !== ErrorCode.NONE)
          errorsOf.set(pr.index, `${errorName(pr.errorCode)}${pr.errorMessage ? `: ${pr.errorMessage}` : ''}`);
      }
    }
  }

  private summary(elapsedMs: number, latency: LatencySummary, finalLine: string): ProduceSummary {
    const { opts, counters: c } = this;
    return {
      tool: 'minnow perf produce',
      startedAt: this.startedAt,
      topic: opts.topic,
      noop: opts.noop,
      acks: opts.acks,
      compression: opts.compression,
      throughputTarget: opts.throughput,
      recordSize: this.payloads.meanValueBytes,
      records: c.records,
      bytes: c.bytes,
      wireBytes: c.wireBytes,
      requests: c.requests,
      errors: c.errors,
      firstError: c.firstError,
      abandoned: c.abandoned,
      warmupRecords: opts.warmupRecords,
      elapsedMs,
      recordsPerSec: (c.records * 1000) / elapsedMs,
      mbPerSec: (c.bytes * 1000) / elapsedMs / MiB,
      latency,
      serviceLatency: c.service.summary(),
      commitLatency: this.transactionCounts() ? c.commit.summary() : null,
      finalLine,
      transactions: this.transactionCounts(),
    };
  }

  private transactionCounts(): TransactionCounts | null {
    const { transactionalId, transactionBatches, noop } = this.opts;
    // --noop has no coordinator: the batches are encoded transactional, nothing is committed.
    if (transactionalId === undefined || noop) return null;
    const txns = this.fleet.producers.flatMap((p) => (p.txn ? [p.txn] : []));
    return {
      transactionalId,
      batchesPerTransaction: transactionBatches,
      committed: txns.reduce((n, t) => n + t.committed, 0),
      aborted: txns.reduce((n, t) => n + t.aborted, 0),
    };
  }
}
