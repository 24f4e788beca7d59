// `minnow perf e2e`: end-to-end latency with one message in flight, as Kafka's EndToEndLatency
// tool measures it: produce a record, and time until a consumer on another connection sees it.
// The consumer's long-polling Fetch is already waiting when the record is produced, so the
// figure includes the broker's wake-up of fetch waiters, not a poll interval.
import { KafkaClient } from '../client/client';
import { ErrorCode, errorName } from '../protocol/error-codes';
import { BASE_OFFSET, decodeRecords, encodeRecordBatch, splitBatches } from '../protocol/record-batch';
import { LatencyHistogram, LatencySummary } from './histogram';
import type { E2eOptions } from './options';
import { randomPayloads } from './payload';
import type { PerfIo } from './io';
import { e2eLines } from './report';

export interface E2eSummary {
  tool: 'minnow perf e2e';
  startedAt: string;
  topic: string;
  records: number;
  recordSize: number;
  acks: number;
  latency: LatencySummary;
}

export async function runE2e(opts: E2eOptions, io: PerfIo): Promise<E2eSummary> {
  const producer = new KafkaClient(opts.bootstrap, {
    clientId: 'minnow-perf-e2e-producer',
    ...(opts.sasl ? { sasl: opts.sasl } : {}),
  });
  const consumer = new KafkaClient(opts.bootstrap, {
    clientId: 'minnow-perf-e2e-consumer',
    ...(opts.sasl ? { sasl: opts.sasl } : {}),
  });
  try {
    let meta;
    try {
      meta = await producer.topic(opts.topic);
    } catch {
      await producer.createTopic(opts.topic, 1, {}).catch(() => {});
      meta = await producer.topic(opts.topic);
    }
    await consumer.metadata([opts.topic]);
    const { partition, leader } = meta.partitions[0]!;
    let position = await consumer.listOffset(opts.topic, partition, leader, -1n);
    const values = randomPayloads(opts.recordSize, 16, 7);
    const histogram = new LatencyHistogram();
    const startedAt = new Date(io.wallNow()).toISOString();
    for (let i = 0; i < opts.numRecords; i++) {
      const value = values[i % values.length]!;
      const t0 = io.now();
      const deadline = t0 + opts.timeoutMs;
      // Fetch first (it long-polls), then produce on the other connection.
      let fetch = consumer.fetch(opts.topic, partition, leader, position, {
        maxWaitMs: opts.timeoutMs,
        maxBytes: 1024 * 1024,
      });
      const batch = encodeRecordBatch({ records: [{ value }], baseTimestamp: BigInt(io.wallNow()) });
      const produced = producer.produce(opts.topic, partition, leader, batch, opts.acks, opts.timeoutMs);
      produced.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
      let seen = false;
      while (!seen) {
        const res = await fetch;
        if (res.errorCode !== ErrorCode.NONE)
          throw new Error(`fetch ${opts.topic}/${partition} at ${position}: ${errorName(res.errorCode)}`);
        for (const b of res.records ? splitBatches(res.records).batches : []) {
          const base = b.readBigInt64BE(BASE_OFFSET);
          for (const r of decodeRecords(b)) {
            const offset = base + BigInt(r.offsetDelta);
            if (offset < position) continue;
            position = offset + 1n;
            if (r.value && r.value.equals(value)) seen = true;
          }
        }
        if (!seen) {
          if (io.now() > deadline)
            throw new Error(`record ${i} was not consumed within ${opts.timeoutMs} ms of being produced`);
          fetch = consumer.fetch(opts.topic, partition, leader, position, {
            maxWaitMs: Math.max(1, Math.round(deadline - io.now())),
            maxBytes: 1024 * 1024,
          });
        }
      }
      const elapsed = io.now() - t0;
      await produced; // its ack may come after the consumer saw the record
      if (i >= opts.warmupRecords) histogram.record(elapsed);
      if ((i + 1) % 1000 === 0) io.out(`${i + 1}\t${elapsed.toFixed(3)}`);
    }
    const latency = histogram.summary();
    for (const l of e2eLines(latency)) io.out(l);
    return {
      tool: 'minnow perf e2e',
      startedAt,
      topic: opts.topic,
      records: latency.count,
      recordSize: opts.recordSize,
      acks: opts.acks,
      latency,
    };
  } finally {
    producer.close();
    consumer.close();
  }
}
