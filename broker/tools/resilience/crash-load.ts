// The crash suite's client (crash-run.ts): one idempotent producer per partition, up to
// MAX_IN_FLIGHT batches in flight each, and a consumer group committing the acknowledged offsets,
// until the broker is killed. It remembers what was promised (acknowledged records and commits)
// for the checks after the restart (crash-checks.ts).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';
import type { OffsetCommitResponse, ProduceResponse } from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';

export const TOPIC = 'crash';
export const GROUP = 'crash-group';
const MAX_IN_FLIGHT = 5; // Kafka's limit for idempotent producers (max.in.flight.requests.per.connection)

export interface Batch {
  baseSeq: number;
  count: number;
  bytes: Buffer;
}

export interface PartitionProducer {
  partition: number;
  /** Sequence (= offset) of the next record to create. */
  nextSeq: number;
  /** Records acknowledged: offsets 0..acked-1 are promised. */
  acked: number;
  /** Sent and not yet acknowledged, oldest first. */
  inFlight: Batch[];
}

/** Record n of a partition holds "partition:n": the log must read them in order, each once. */
export const recordValue = (partition: number, seq: number) => Buffer.from(`${partition}:${seq}`);

/** A broken promise to a client; the message says which, and the seed to reproduce it. */
export class CrashInvariantError extends Error {
  override readonly name = 'CrashInvariantError';
}

/** Throws CrashInvariantError with the message and what reproduces the run. */
export type Fail = (msg: string) => never;

export class CrashLoad {
  readonly producers: PartitionProducer[];
  /** Offsets of the last acknowledged commit, and the highest sent since, per partition. */
  readonly commitAcked: number[];
  readonly commitSentMax: number[];
  producerId = -1n;
  producerEpoch = 0;
  offsetCommitsAcknowledged = 0;
  private nextBatchSize = 0;

  constructor(
    partitions: number,
    /** Records per batch, drawn from the seed and used in turn. */
    private readonly batchSizes: readonly number[],
    private readonly fail: Fail,
  ) {
    this.producers = Array.from({ length: partitions }, (_, partition) => ({
      partition,
      nextSeq: 0,
      acked: 0,
      inFlight: [],
    }));
    this.commitAcked = new Array<number>(partitions).fill(-1);
    this.commitSentMax = new Array<number>(partitions).fill(-1);
  }

  newBatch(p: PartitionProducer): Batch {
    const count = this.batchSizes[this.nextBatchSize++ % this.batchSizes.length]!;
    const baseSeq = p.nextSeq;
    p.nextSeq += count;
    const records = Array.from({ length: count }, (_, i) => ({ value: recordValue(p.partition, baseSeq + i) }));
    return {
      baseSeq,
      count,
      bytes: encodeRecordBatch({
        records,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        baseSequence: baseSeq,
      }),
    };
  }

  /** Sends one batch; resolves with its acknowledgement, checked against the promise that seq n is at offset n. */
  async produce(conn: KafkaConnection, p: PartitionProducer, b: Batch): Promise<void> {
    const v = conn.version(ApiKey.Produce, 3, 11);
    const res: ProduceResponse = await conn.send(ApiKey.Produce, v, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 15_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: p.partition, records: b.bytes }] }],
    });
    const r = res.responses[0]!.partitionResponses[0]!;
    if (r.errorCode !== ErrorCode.NONE) {
      this.fail(
        `produce of sequences ${b.baseSeq}..${b.baseSeq + b.count - 1} to ${TOPIC}/${p.partition} answered ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`,
      );
    }
    if (r.baseOffset !== BigInt(b.baseSeq))
      this.fail(
        `batch with base sequence ${b.baseSeq} on ${TOPIC}/${p.partition} was acknowledged at offset ${r.baseOffset}, expected ${b.baseSeq}`,
      );
    if (p.inFlight[0] !== b)
      this.fail(`acknowledgement of ${TOPIC}/${p.partition} sequence ${b.baseSeq} came out of order`);
    p.inFlight.shift();
    p.acked = b.baseSeq + b.count;
  }

  async commitOffsets(conn: KafkaConnection): Promise<void> {
    const offsets = this.producers.map((p) => p.acked);
    offsets.forEach((o, i) => (this.commitSentMax[i] = Math.max(this.commitSentMax[i]!, o)));
    const v = conn.version(ApiKey.OffsetCommit, 2, 8);
    const res: OffsetCommitResponse = await conn.send(ApiKey.OffsetCommit, v, {
      groupId: GROUP,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: TOPIC,
          partitions: offsets.map((o, partitionIndex) => ({
            partitionIndex,
            committedOffset: BigInt(o),
            committedLeaderEpoch: -1,
            committedMetadata: null,
          })),
        },
      ],
    });
    for (const part of res.topics[0]!.partitions) {
      if (part.errorCode !== ErrorCode.NONE)
        this.fail(`OffsetCommit of ${TOPIC}/${part.partitionIndex} answered ${errorName(part.errorCode)}`);
    }
    offsets.forEach((o, i) => (this.commitAcked[i] = o));
    this.offsetCommitsAcknowledged++;
  }

  /** Produces and commits until `stop` resolves (after the kill, so every request then fails). */
  async run(conn: KafkaConnection, stop: Promise<void>): Promise<void> {
    let stopped = false;
    let broken: Error | undefined;
    void stop.then(() => (stopped = true));
    // A request failing because the broker died ends the load; a broken promise ends the run.
    const settle = (request: Promise<void>) =>
      request.catch((err: Error) => {
        if (err instanceof CrashInvariantError) broken ??= err;
        stopped = true;
      });
    const pump = async (p: PartitionProducer) => {
      const sends: Promise<void>[] = [];
      while (!stopped) {
        while (!stopped && p.inFlight.length < MAX_IN_FLIGHT) {
          const b = this.newBatch(p);
          p.inFlight.push(b);
          sends.push(settle(this.produce(conn, p, b)));
        }
        await sends.shift();
      }
      await Promise.all(sends);
    };
    const committer = async () => {
      while (!stopped) await settle(this.commitOffsets(conn));
    };
    await Promise.all([...this.producers.map(pump), committer()]);
    if (broken) throw broken;
  }
}
