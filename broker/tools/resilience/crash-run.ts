// The kill -9 crash suite: a child-process broker under idempotent produce load (acks=-1, up to 5
// batches in flight per partition, as an idempotent producer may have) and consumer-group offset
// commits, killed with SIGKILL at seeded random moments and restarted on the same file. After every
// restart it checks what a client was promised:
// - the file passes PRAGMA quick_check (read-only, before the broker opens it again);
// - the producer resends its unacknowledged batches with their old sequences and gets each answered
//   without error (a duplicate with the offset it was first written at, KIP-98), then goes on;
// - every partition holds every acknowledged record exactly once at its acknowledged offset, and
//   nothing else: one producer per fresh partition writes sequence n at offset n, so the log must
//   read 0, 1, 2 ... up to the high watermark;
// - the group's committed offsets are those of the last acknowledged commit or of a later one sent;
// - InitProducerId after the restart never hands out a producer id given before.
import fc from 'fast-check';
import Database from 'better-sqlite3';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';
import type {
  FetchResponse,
  InitProducerIdResponse,
  ListOffsetsResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
  ProduceResponse,
} from '../../src/protocol/messages';
import { decodeRecords, encodeRecordBatch, splitBatches } from '../../src/protocol/record-batch';
import { ChildBroker } from './child-broker';
import { recordBytes } from '../../src/protocol/records';

export interface CrashRunOptions {
  /** Folder for the database file (one file for the whole run). */
  dir: string;
  seed: number;
  kills: number;
  synchronous: 'normal' | 'full';
  partitions?: number;
  /** Load time before each kill is drawn from this range (ms). */
  killAfterMs?: [number, number];
  log?: (line: string) => void;
}

export interface CrashRunReport {
  kills: number;
  /** Records acknowledged over the run (all of them checked after every restart). */
  acknowledgedRecords: number;
  /** Batches in flight at a kill, resent after the restart. */
  resentBatches: number;
  /** Of those, the ones the broker had already written (answered as duplicates). */
  resentAlreadyWritten: number;
  offsetCommitsAcknowledged: number;
  /** Time from spawn to "listening", ms, per restart. */
  startMs: number[];
}

/** A broken promise to a client; the message says which, and the seed to reproduce it. */
export class CrashInvariantError extends Error {
  override readonly name = 'CrashInvariantError';
}

const TOPIC = 'crash';
const GROUP = 'crash-group';
const MAX_IN_FLIGHT = 5; // Kafka's limit for idempotent producers (max.in.flight.requests.per.connection)

interface Batch {
  baseSeq: number;
  count: number;
  bytes: Buffer;
}

interface PartitionProducer {
  partition: number;
  /** Sequence (= offset) of the next record to create. */
  nextSeq: number;
  /** Records acknowledged: offsets 0..acked-1 are promised. */
  acked: number;
  /** Sent and not yet acknowledged, oldest first. */
  inFlight: Batch[];
}

const recordValue = (partition: number, seq: number) => Buffer.from(`${partition}:${seq}`);

export async function runCrashSuite(opts: CrashRunOptions): Promise<CrashRunReport> {
  const log = opts.log ?? (() => {});
  const partitions = opts.partitions ?? 3;
  const dbFile = path.join(opts.dir, `crash-${opts.synchronous}.db`);
  const storageUrl = `sqlite://${dbFile}`;
  const env = { SQLITE_SYNCHRONOUS: opts.synchronous, LOG_LEVEL: 'info' };
  const [lo, hi] = opts.killAfterMs ?? [30, 500];
  // Every random choice comes from the seed, so a failing run can be replayed (timing aside).
  const killAfter = fc.sample(fc.integer({ min: lo, max: hi }), { seed: opts.seed, numRuns: opts.kills });
  const batchSizes = fc.sample(fc.integer({ min: 1, max: 40 }), { seed: opts.seed + 1, numRuns: 997 });
  let nextBatchSize = 0;
  const fail = (msg: string): never => {
    throw new CrashInvariantError(`${msg} (seed ${opts.seed}, SQLITE_SYNCHRONOUS=${opts.synchronous}, file ${dbFile})`);
  };

  const report: CrashRunReport = {
    kills: 0,
    acknowledgedRecords: 0,
    resentBatches: 0,
    resentAlreadyWritten: 0,
    offsetCommitsAcknowledged: 0,
    startMs: [],
  };
  const producers: PartitionProducer[] = Array.from({ length: partitions }, (_, partition) => ({
    partition,
    nextSeq: 0,
    acked: 0,
    inFlight: [],
  }));
  const producerIdsSeen = new Set<bigint>();
  /** Offsets of the last acknowledged commit, and the highest sent since, per partition. */
  const commitAcked = new Array<number>(partitions).fill(-1);
  const commitSentMax = new Array<number>(partitions).fill(-1);
  let producerId = -1n;
  let producerEpoch = 0;

  const start = async (): Promise<{ broker: ChildBroker; conn: KafkaConnection }> => {
    const t0 = Date.now();
    const broker = await ChildBroker.start({ storageUrl, env }).catch((err: Error) =>
      fail(`the broker did not start after ${report.kills} kills: ${err.message}`),
    );
    report.startMs.push(Date.now() - t0);
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port, {
      clientId: 'crash-suite',
      requestTimeoutMs: 20_000,
    });
    return { broker, conn };
  };

  const initProducerId = async (conn: KafkaConnection): Promise<{ producerId: bigint; producerEpoch: number }> => {
    const v = conn.version(ApiKey.InitProducerId, 0, 4);
    const res: InitProducerIdResponse = await conn.send(ApiKey.InitProducerId, v, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    if (res.errorCode !== ErrorCode.NONE) fail(`InitProducerId failed after a restart: ${errorName(res.errorCode)}`);
    const id = res.producerId ?? -1n;
    if (producerIdsSeen.has(id))
      fail(
        `InitProducerId handed out producer id ${id} again after a restart (ids seen: ${[...producerIdsSeen].join(', ')})`,
      );
    producerIdsSeen.add(id);
    return { producerId: id, producerEpoch: res.producerEpoch ?? 0 };
  };

  const newBatch = (p: PartitionProducer): Batch => {
    const count = batchSizes[nextBatchSize++ % batchSizes.length]!;
    const baseSeq = p.nextSeq;
    p.nextSeq += count;
    const records = Array.from({ length: count }, (_, i) => ({ value: recordValue(p.partition, baseSeq + i) }));
    return { baseSeq, count, bytes: encodeRecordBatch({ records, producerId, producerEpoch, baseSequence: baseSeq }) };
  };

  /** Sends one batch; resolves with its acknowledgement, checked against the promise that seq n is at offset n. */
  const produce = async (conn: KafkaConnection, p: PartitionProducer, b: Batch): Promise<void> => {
    const v = conn.version(ApiKey.Produce, 3, 11);
    const res: ProduceResponse = await conn.send(ApiKey.Produce, v, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 15_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: p.partition, records: b.bytes }] }],
    });
    const r = res.responses[0]!.partitionResponses[0]!;
    if (r.errorCode !== ErrorCode.NONE) {
      fail(
        `produce of sequences ${b.baseSeq}..${b.baseSeq + b.count - 1} to ${TOPIC}/${p.partition} answered ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`,
      );
    }
    if (r.baseOffset !== BigInt(b.baseSeq))
      fail(
        `batch with base sequence ${b.baseSeq} on ${TOPIC}/${p.partition} was acknowledged at offset ${r.baseOffset}, expected ${b.baseSeq}`,
      );
    if (p.inFlight[0] !== b) fail(`acknowledgement of ${TOPIC}/${p.partition} sequence ${b.baseSeq} came out of order`);
    p.inFlight.shift();
    p.acked = b.baseSeq + b.count;
  };

  const commitOffsets = async (conn: KafkaConnection): Promise<void> => {
    const offsets = producers.map((p) => p.acked);
    offsets.forEach((o, i) => (commitSentMax[i] = Math.max(commitSentMax[i]!, o)));
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
        fail(`OffsetCommit of ${TOPIC}/${part.partitionIndex} answered ${errorName(part.errorCode)}`);
    }
    offsets.forEach((o, i) => (commitAcked[i] = o));
    report.offsetCommitsAcknowledged++;
  };

  /** Produces and commits until `stop` resolves (after the kill, so every request then fails). */
  const load = async (conn: KafkaConnection, stop: Promise<void>): Promise<void> => {
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
          const b = newBatch(p);
          p.inFlight.push(b);
          sends.push(settle(produce(conn, p, b)));
        }
        await sends.shift();
      }
      await Promise.all(sends);
    };
    const committer = async () => {
      while (!stopped) await settle(commitOffsets(conn));
    };
    await Promise.all([...producers.map(pump), committer()]);
    if (broken) throw broken;
  };

  /** The log end offset of a partition (ListOffsets latest). */
  const logEndOffset = async (conn: KafkaConnection, partition: number): Promise<number> => {
    const res: ListOffsetsResponse = await conn.send(ApiKey.ListOffsets, conn.version(ApiKey.ListOffsets, 1, 7), {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }] }],
    });
    const part = res.topics[0]!.partitions[0]!;
    if (part.errorCode !== ErrorCode.NONE)
      fail(`ListOffsets of ${TOPIC}/${partition} answered ${errorName(part.errorCode)}`);
    return Number(part.offset);
  };

  const quickCheck = () => {
    const db = new Database(dbFile, { readonly: true });
    try {
      const rows = db.pragma('quick_check') as { quick_check: string }[];
      if (rows.length !== 1 || rows[0]!.quick_check !== 'ok')
        fail(`PRAGMA quick_check after a kill: ${JSON.stringify(rows)}`);
    } finally {
      db.close();
    }
  };

  /** Reads every partition from 0 and checks record n holds sequence n, up to the high watermark. */
  const verifyLog = async (conn: KafkaConnection) => {
    const v = conn.version(ApiKey.Fetch, 4, 11);
    for (const p of producers) {
      let offset = 0;
      let highWatermark = -1;
      while (highWatermark < 0 || offset < highWatermark) {
        const res: FetchResponse = await conn.send(ApiKey.Fetch, v, {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 8 * 1024 * 1024,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            {
              topic: TOPIC,
              partitions: [
                {
                  partition: p.partition,
                  currentLeaderEpoch: -1,
                  fetchOffset: BigInt(offset),
                  logStartOffset: -1n,
                  partitionMaxBytes: 8 * 1024 * 1024,
                },
              ],
            },
          ],
          forgottenTopicsData: [],
          rackId: '',
        });
        const part = res.responses[0]!.partitions[0]!;
        if (part.errorCode !== ErrorCode.NONE)
          fail(`fetch of ${TOPIC}/${p.partition} at ${offset} answered ${errorName(part.errorCode)}`);
        highWatermark = Number(part.highWatermark);
        if (offset >= highWatermark) break;
        const { batches } = splitBatches(recordBytes(part.records ?? Buffer.alloc(0)));
        if (batches.length === 0)
          fail(
            `fetch of ${TOPIC}/${p.partition} at ${offset} returned no batch below the high watermark ${highWatermark}`,
          );
        for (const batch of batches) {
          const baseOffset = Number(batch.readBigInt64BE(0));
          for (const rec of decodeRecords(batch)) {
            const at = baseOffset + rec.offsetDelta;
            if (at < offset) continue; // the first batch may start before the fetch offset
            const want = recordValue(p.partition, at).toString();
            const got = rec.value?.toString();
            if (at !== offset) fail(`${TOPIC}/${p.partition}: offset ${offset} is missing (next record is at ${at})`);
            if (got !== want)
              fail(
                `${TOPIC}/${p.partition} offset ${at} holds "${got}", expected "${want}" (lost or duplicated record)`,
              );
            offset++;
          }
        }
      }
      if (highWatermark !== p.acked) {
        fail(
          `${TOPIC}/${p.partition} high watermark is ${highWatermark} after every batch was resent and acknowledged; ${p.acked} records were acknowledged`,
        );
      }
    }
  };

  const verifyCommittedOffsets = async (conn: KafkaConnection) => {
    const v = conn.version(ApiKey.OffsetFetch, 1, 7);
    const res: OffsetFetchResponse = await conn.send(ApiKey.OffsetFetch, v, {
      groupId: GROUP,
      topics: [{ name: TOPIC, partitionIndexes: producers.map((p) => p.partition) }],
      requireStable: false,
    });
    if ((res.errorCode ?? 0) !== ErrorCode.NONE) fail(`OffsetFetch of ${GROUP} answered ${errorName(res.errorCode!)}`);
    const answered = res.topics?.find((t) => t.name === TOPIC)?.partitions ?? [];
    if (answered.length !== partitions)
      fail(`OffsetFetch of ${GROUP} answered ${answered.length} partitions of ${TOPIC}, expected ${partitions}`);
    for (const part of answered) {
      if ((part.errorCode ?? 0) !== ErrorCode.NONE)
        fail(`OffsetFetch of ${GROUP} ${TOPIC}/${part.partitionIndex} answered ${errorName(part.errorCode!)}`);
      const committed = Number(part.committedOffset);
      const i = part.partitionIndex ?? -1;
      if (committed < commitAcked[i]! || committed > commitSentMax[i]!) {
        fail(
          `group ${GROUP} has offset ${committed} for ${TOPIC}/${i} after a restart; the last acknowledged commit was ${commitAcked[i]} and the highest sent ${commitSentMax[i]}`,
        );
      }
      commitAcked[i] = committed;
    }
  };

  log(`crash suite: seed ${opts.seed}, ${opts.kills} kills, SQLITE_SYNCHRONOUS=${opts.synchronous}, ${dbFile}`);
  // First start: the topic, the producer id.
  let { broker, conn } = await start();
  try {
    const ct = await conn.send(ApiKey.CreateTopics, conn.version(ApiKey.CreateTopics, 2, 7), {
      topics: [{ name: TOPIC, numPartitions: partitions, replicationFactor: -1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    if (ct.topics[0].errorCode !== ErrorCode.NONE) fail(`creating ${TOPIC}: ${errorName(ct.topics[0].errorCode)}`);
    ({ producerId, producerEpoch } = await initProducerId(conn));

    for (let k = 0; k < opts.kills; k++) {
      const delayMs = killAfter[k]!;
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => void broker.kill9().then(resolve), delayMs);
      });
      // The load ends by the kill: its requests fail with "connection closed".
      await load(conn, killed).catch((err: Error) => {
        if (err instanceof CrashInvariantError) throw err;
      });
      clearTimeout(timer);
      await killed;
      conn.close();
      report.kills++;
      const inFlight = producers.reduce((n, p) => n + p.inFlight.length, 0);
      const writtenBefore = report.resentAlreadyWritten;
      const loadErrors = broker.lines.filter((l) => l.level === 'error');
      if (loadErrors.length > 0)
        fail(
          `the broker logged errors under load before kill ${report.kills}: ${loadErrors.map((l) => JSON.stringify(l)).join('; ')}`,
        );
      quickCheck();

      ({ broker, conn } = await start());
      for (const p of producers) {
        // The kill may land before, inside or after the commit of the batches in flight, but a batch
        // is written whole or not at all, and nothing acknowledged is gone.
        const end = await logEndOffset(conn, p.partition);
        const boundaries = [p.acked, ...p.inFlight.map((b) => b.baseSeq + b.count)];
        if (!boundaries.includes(end)) {
          fail(
            `${TOPIC}/${p.partition} ends at offset ${end} after the kill; ${p.acked} records were acknowledged and the batches in flight end at ${boundaries.slice(1).join(', ') || 'none'}`,
          );
        }
        // Resend what was in flight, with its old sequences, as the idempotent producer does.
        const resend = [...p.inFlight];
        report.resentBatches += resend.length;
        report.resentAlreadyWritten += resend.filter((b) => b.baseSeq < end).length;
        await Promise.all(resend.map((b) => produce(conn, p, b)));
      }
      await verifyLog(conn);
      const errors = broker.lines.filter((l) => l.level === 'error');
      if (errors.length > 0)
        fail(
          `the broker logged errors after restart ${report.kills}: ${errors.map((l) => JSON.stringify(l)).join('; ')}`,
        );
      await verifyCommittedOffsets(conn);
      await initProducerId(conn); // a new producer must get a fresh id; ours keeps its own
      report.acknowledgedRecords = producers.reduce((n, p) => n + p.acked, 0);
      log(
        `kill ${k + 1}/${opts.kills} (sync ${opts.synchronous}) after ${delayMs} ms of load: ${inFlight} batches in flight resent (${report.resentAlreadyWritten - writtenBefore} already written), ` +
          `${report.acknowledgedRecords} acknowledged records all present once, committed offsets kept`,
      );
    }
    return report;
  } finally {
    conn.close();
    await broker.stop();
  }
}
