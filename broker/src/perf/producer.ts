// `minnow perf produce`: C connections x P producers, each with one Produce request in flight,
// drawing records from one shared schedule (rate-limiter.ts). Latency of a record is its ack time
// minus the time the schedule intended to send it; the time from the request's write to its ack
// ("service time", what tools with coordinated omission report) is kept alongside for contrast.
import { KafkaClient } from '../client/client';
import { KafkaClientError, KafkaConnection } from '../client/connection';
import { partitionForKey } from '../client/partitioner';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { InitProducerIdResponse, ProduceResponse } from '../protocol/messages';
import { encodeRecordBatch, RecordInput } from '../protocol/record-batch';
import { GraphiteSender, graphiteLines } from './graphite';
import { LatencyHistogram, LatencySummary, Window } from './histogram';
import type { ProduceOptions } from './options';
import { makePayloads, payloadsFromFile, randomPayloads, recordsPerBatch } from './payload';
import { Claim, Schedule } from './rate-limiter';
import { MiB, producerFinalLine, producerProgressLine, progressBar } from './report';

/** After a --duration run ends, records still queued get this long to be sent. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** With acks=0 nothing is answered, so every few requests a producer waits for an ApiVersions
 * round trip: the broker answers in order, so that bounds what sits in socket buffers. */
const ACKS0_BARRIER_EVERY = 8;

export interface PerfIo {
  out(line: string): void;
  err(line: string): void;
  /** Redraws the progress bar (TTY only). */
  bar?(text: string): void;
  isTTY: boolean;
  /** Monotonic ms. */
  now(): number;
  /** Wall clock ms (record timestamps, report dates). */
  wallNow(): number;
}

export const processIo = (): PerfIo => ({
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  bar: (t) => process.stdout.write(`\r\x1b[K${t}`),
  isTTY: process.stdout.isTTY === true,
  now: () => performance.now(),
  wallNow: () => Date.now(),
});

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
  finalLine: string;
}

interface Target {
  partition: number;
  leader: number;
}

interface Producer {
  conn: KafkaConnection | null;
  connsByLeader: Map<number, KafkaConnection>;
  producerId: bigint;
  producerEpoch: number;
  sequences: Map<number, number>;
  sent: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function topicTargets(client: KafkaClient, opts: ProduceOptions, io: PerfIo): Promise<Target[]> {
  try {
    const t = await client.topic(opts.topic);
    return t.partitions.map((p) => ({ partition: p.partition, leader: p.leader }));
  } catch (err) {
    if (!(err instanceof KafkaClientError) || err.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) throw err;
  }
  try {
    await client.createTopic(opts.topic, opts.partitions, {});
    io.err(`created topic ${opts.topic} with ${opts.partitions} partition${opts.partitions === 1 ? '' : 's'}`);
  } catch (err) {
    if (!(err instanceof KafkaClientError) || err.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) throw err;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const t = await client.topic(opts.topic);
      if (t.partitions.every((p) => p.leader >= 0))
        return t.partitions.map((p) => ({ partition: p.partition, leader: p.leader }));
    } catch (err) {
      if (attempt >= 20) throw err;
    }
    await sleep(100);
  }
}

export async function runProducePerf(opts: ProduceOptions, io: PerfIo): Promise<ProduceSummary> {
  const values =
    opts.payloadFile !== undefined
      ? payloadsFromFile(opts.payloadFile, opts.payloadDelimiter)
      : randomPayloads(opts.recordSize ?? 0);
  const payloads = makePayloads(values, opts.keys);
  const perBatch = recordsPerBatch(opts.batchSizeBytes, payloads.meanValueBytes + payloads.meanKeyBytes);
  for (const k of opts.ignoredProps) io.err(`warning: --producer-props ${k} is not used by minnow perf`);

  // Connections, metadata and producer ids.
  const clients: KafkaClient[] = [];
  const producers: Producer[] = [];
  let targets: Target[] = Array.from({ length: opts.partitions }, (_, partition) => ({ partition, leader: -1 }));
  let graphite: GraphiteSender | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    if (!opts.noop) {
      for (let c = 0; c < opts.clients; c++) {
        const client = new KafkaClient(opts.bootstrap, {
          clientId: opts.clientId,
          requestTimeoutMs: opts.requestTimeoutMs,
        });
        clients.push(client);
        if (c === 0) targets = await topicTargets(client, opts, io);
        else await client.metadata([opts.topic]);
        const leaders = [...new Set(targets.map((t) => t.leader))];
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
          if (opts.idempotent) {
            const conn = await client.connect();
            const v = conn.version(ApiKey.InitProducerId, 0, 4);
            const res: InitProducerIdResponse = await conn.send(ApiKey.InitProducerId, v, {
              transactionalId: null,
              transactionTimeoutMs: 60_000,
              producerId: -1n,
              producerEpoch: -1,
            });
            if (res.errorCode !== ErrorCode.NONE)
              throw new KafkaClientError(`InitProducerId failed: ${errorName(res.errorCode)}`, res.errorCode);
            producer.producerId = res.producerId ?? -1n;
            producer.producerEpoch = res.producerEpoch;
          }
          producers.push(producer);
        }
      }
    } else {
      for (let p = 0; p < opts.clients * opts.producers; p++) {
        producers.push({
          conn: null,
          connsByLeader: new Map(),
          producerId: opts.idempotent ? BigInt(p) : -1n,
          producerEpoch: opts.idempotent ? 0 : -1,
          sequences: new Map(),
          sent: 0,
        });
      }
    }
    if (opts.graphite) graphite = new GraphiteSender(opts.graphite.host, opts.graphite.port, io.err);

    const startMs = io.now();
    const startedAt = new Date(io.wallNow()).toISOString();
    const schedule = new Schedule({
      ratePerSec: opts.throughput,
      totalRecords: opts.numRecords ?? Infinity,
      startMs,
      endMs: opts.durationMs === undefined ? Infinity : startMs + opts.durationMs,
    });
    const histogram = new LatencyHistogram();
    const service = new LatencyHistogram();
    const window = new Window(startMs);
    let records = 0;
    let bytes = 0;
    let wireBytes = 0;
    let requests = 0;
    let errors = 0;
    let firstError: string | null = null;
    let abandoned = 0;
    let steadyStartMs = Infinity;
    let lastAckMs = startMs;
    let sticky = 0;
    let failure: Error | undefined;
    let acked = 0;

    // Reporting: a progress line per interval, graphite, a TTY bar with --num-records.
    const showBar = io.isTTY && io.bar !== undefined && opts.numRecords !== undefined;
    const drawBar = () => {
      if (!showBar) return;
      const elapsed = io.now() - startMs;
      io.bar!(progressBar(acked, opts.numRecords!, elapsed > 0 ? (acked * 1000) / elapsed : 0));
    };
    const report = () => {
      const now = io.now();
      const elapsedMs = now - window.startMs;
      if (showBar) io.bar!('');
      io.out(
        producerProgressLine({
          records: window.records,
          bytes: window.bytes,
          elapsedMs,
          avgMs: window.avgMs,
          maxMs: window.maxMs,
        }),
      );
      if (graphite) {
        const s = elapsedMs / 1000;
        graphite.send(
          graphiteLines(
            opts.graphitePrefix,
            {
              rate: window.records / s,
              errorRate: window.errors / s,
              bytesPerSec: window.bytes / s,
              p99Ms: window.histogram.percentileMs(99),
            },
            io.wallNow(),
          ),
        );
      }
      window.reset(now);
      drawBar();
    };
    timers.push(setInterval(report, opts.reportIntervalMs));
    if (showBar) timers.push(setInterval(drawBar, 250));

    const partitionCount = targets.length;
    const buildAndSend = async (producer: Producer, claim: Claim): Promise<void> => {
      // Group the claim's records by partition: keyed records by murmur2, unkeyed ones sticky (the
      // whole claim to one partition, rotating per claim, as Kafka's sticky partitioner does).
      const byPartition = new Map<number, number[]>();
      if (opts.keys > 0) {
        for (let i = claim.first; i < claim.first + claim.count; i++) {
          const p = partitionForKey(payloads.key(i)!, partitionCount);
          let list = byPartition.get(p);
          if (!list) byPartition.set(p, (list = []));
          list.push(i);
        }
      } else {
        byPartition.set(
          sticky++ % partitionCount,
          Array.from({ length: claim.count }, (_, k) => claim.first + k),
        );
      }
      const timestamp = BigInt(Math.round(io.wallNow()));
      const batches: { target: Target; indexes: number[]; batch: Buffer; bytes: number }[] = [];
      for (const [p, indexes] of byPartition) {
        let payloadBytes = 0;
        const recs: RecordInput[] = indexes.map((i) => {
          const key = payloads.key(i);
          const value = payloads.value(i);
          payloadBytes += value.length + (key ? key.length : 0);
          return { key, value };
        });
        const seq = producer.sequences.get(p) ?? 0;
        const batch = encodeRecordBatch({
          records: recs,
          compression: opts.compression,
          baseTimestamp: timestamp,
          producerId: producer.producerId,
          producerEpoch: producer.producerEpoch,
          baseSequence: opts.idempotent ? seq : -1,
        });
        if (opts.idempotent) producer.sequences.set(p, (seq + recs.length) % 2 ** 31);
        wireBytes += batch.length;
        batches.push({ target: targets[p]!, indexes, batch, bytes: payloadBytes });
      }
      const sendMs = io.now();
      const errorsOf = new Map<number, string>();
      if (producer.conn) {
        const byLeader = new Map<number, typeof batches>();
        for (const b of batches) {
          let list = byLeader.get(b.target.leader);
          if (!list) byLeader.set(b.target.leader, (list = []));
          list.push(b);
        }
        await Promise.all(
          [...byLeader].map(async ([leader, list]) => {
            const conn = producer.connsByLeader.get(leader) ?? producer.conn!;
            const v = conn.version(ApiKey.Produce, 3, 9);
            const body = {
              transactionalId: null,
              acks: opts.acks,
              timeoutMs: opts.requestTimeoutMs,
              topicData: [
                { name: opts.topic, partitionData: list.map((b) => ({ index: b.target.partition, records: b.batch })) },
              ],
            };
            requests++;
            if (opts.acks === 0) {
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
          }),
        );
      } else {
        requests++;
        if (++producer.sent % 4 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const ackMs = io.now();
      lastAckMs = Math.max(lastAckMs, ackMs);
      const serviceMs = ackMs - sendMs;
      for (const b of batches) {
        const error = errorsOf.get(b.target.partition);
        if (error !== undefined) {
          errors += b.indexes.length;
          window.errors += b.indexes.length;
          firstError ??= `produce to ${opts.topic}/${b.target.partition}: ${error}`;
          continue;
        }
        acked += b.indexes.length;
        const perRecordBytes = b.bytes / b.indexes.length;
        let steady = 0;
        if (schedule.unlimited) {
          // One take time for the whole claim: one histogram update per batch.
          const intended = schedule.intendedOf(claim, b.indexes[0]!);
          for (const i of b.indexes) if (i >= opts.warmupRecords) steady++;
          window.record(ackMs - intended, b.indexes.length, b.bytes);
          if (steady > 0) {
            histogram.record(ackMs - intended, steady);
            steadyStartMs = Math.min(steadyStartMs, intended);
          }
        } else {
          for (const i of b.indexes) {
            const intended = schedule.intendedMs(i);
            window.record(ackMs - intended, 1, perRecordBytes);
            if (i < opts.warmupRecords) continue;
            steady++;
            if (intended < steadyStartMs) steadyStartMs = intended;
            histogram.record(ackMs - intended);
          }
        }
        if (steady > 0) service.record(serviceMs, steady);
        records += steady;
        bytes += perRecordBytes * steady;
      }
      schedule.release(claim);
    };

    const runProducer = async (producer: Producer) => {
      while (!failure) {
        const now = io.now();
        if (opts.durationMs !== undefined && now > startMs + opts.durationMs + DRAIN_TIMEOUT_MS) break;
        const r = schedule.take(now, perBatch, opts.lingerMs);
        if ('done' in r) break;
        if ('waitUntilMs' in r) {
          await sleep(r.waitUntilMs - now);
          continue;
        }
        await buildAndSend(producer, r.claim);
      }
    };
    await Promise.all(
      producers.map((p) =>
        runProducer(p).catch((err: Error) => {
          failure ??= err;
        }),
      ),
    );
    if (failure) throw failure;

    // Records of a --duration run that could not be sent in time: counted in the histogram at the
    // time they waited (a lower bound), so an overloaded broker is not flattered.
    const endNow = io.now();
    for (let i = schedule.taken; !schedule.unlimited && i < schedule.capacity; i++) {
      if (i >= opts.warmupRecords) histogram.record(endNow - schedule.intendedMs(i));
      abandoned++;
    }
    for (const t of timers) clearInterval(t);
    timers.length = 0;
    if (window.records > 0 || window.errors > 0) report();
    if (showBar) io.bar!('');

    const elapsedMs = Math.max(
      1e-3,
      lastAckMs - (opts.warmupRecords > 0 && steadyStartMs !== Infinity ? steadyStartMs : startMs),
    );
    const latency = histogram.summary();
    const finalLine = producerFinalLine(records, bytes, elapsedMs, latency);
    io.out(finalLine);
    if (errors > 0) io.err(`${errors} records failed; first error: ${firstError}`);
    if (abandoned > 0)
      io.err(
        `${abandoned} records could not be sent within ${DRAIN_TIMEOUT_MS / 1000}s of the end; the percentiles count them at the time they had waited`,
      );
    return {
      tool: 'minnow perf produce',
      startedAt,
      topic: opts.topic,
      noop: opts.noop,
      acks: opts.acks,
      compression: opts.compression,
      throughputTarget: opts.throughput,
      recordSize: payloads.meanValueBytes,
      records,
      bytes,
      wireBytes,
      requests,
      errors,
      firstError,
      abandoned,
      warmupRecords: opts.warmupRecords,
      elapsedMs,
      recordsPerSec: (records * 1000) / elapsedMs,
      mbPerSec: (bytes * 1000) / elapsedMs / MiB,
      latency,
      serviceLatency: service.summary(),
      finalLine,
    };
  } finally {
    for (const t of timers) clearInterval(t);
    for (const c of clients) c.close();
    await graphite?.close();
  }
}
