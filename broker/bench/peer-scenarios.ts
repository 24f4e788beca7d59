// One scenario's load on one running broker (peer-brokers.ts): Kafka's own kafka-producer-perf-test
// / kafka-consumer-perf-test and `minnow perf`, one after the other, with the broker's CPU over
// each tool's load window and its peak RSS over the scenario.
import { runKafkaTool } from './kafka-peer';
import { consumerPerfRow, producerPerfTotal } from './kafka-perf-output';
import { CONFIGS_1K, pacedArgs, produceArgs } from './load-args';
import { peakBetween, RunningPeer } from './peer-brokers';
import type { PeerId, PeerScenarioResult, ToolFigures } from './peers-report';
import { log, perf, ToolRun } from './processes';
import type { ConsumeSummary } from '../src/perf/consumer';
import type { ProduceSummary } from '../src/perf/producer';

const MiB = 1024 * 1024;
/** As the main harness: paced runs count broker CPU from this long after the load starts (JIT warm-up). */
export const STEADY_AFTER_MS = 3000;

/**
 * One kafka-producer-perf-test run: `--num-records N --record-size B --throughput R --producer-props
 * acks=all ...`; with `payloadFile`, `--payload-file F` instead of `--record-size` (the tool takes
 * one or the other), and `producerProps` after acks=all (compression.type=lz4).
 */
export async function kafkaProducerPerf(
  peer: RunningPeer,
  kafkaVersion: string,
  topic: string,
  numRecords: number,
  recordSize: number,
  throughput: number,
  more: { payloadFile?: string; producerProps?: string[] } = {},
): Promise<ToolFigures> {
  const props = more.producerProps ?? [];
  log(
    `  kafka-producer-perf-test: ${numRecords} x ${recordSize} B at ${throughput < 0 ? 'max' : `${throughput}/s`}${props.length ? ` (${props.join(' ')})` : ''}`,
  );
  const run = await runKafkaTool(
    'ProducerPerformance',
    [
      '--topic',
      topic,
      '--num-records',
      numRecords,
      ...(more.payloadFile ? ['--payload-file', more.payloadFile] : ['--record-size', recordSize]),
      '--throughput',
      throughput,
      '--producer-props',
      'acks=all',
      ...props,
      `bootstrap.servers=${peer.bootstrap}`,
    ],
    kafkaVersion,
  );
  const t = producerPerfTotal(run.output);
  // The tool's clock starts at its first send, after the JVM and the producer's metadata: its
  // load window is the last records/rate seconds of the process.
  const loadMs = t.recordsPerSec > 0 ? (t.records / t.recordsPerSec) * 1000 : NaN;
  const from = run.toMs - loadMs + (throughput > 0 ? STEADY_AFTER_MS : 0);
  return {
    tool: 'kafka-producer-perf-test',
    records: t.records,
    recordsPerSec: t.recordsPerSec,
    mbPerSec: t.mbPerSec,
    p50Ms: t.p50Ms,
    p99Ms: t.p99Ms,
    p999Ms: t.p999Ms,
    brokerCpuPercent: peer.sampler.cpuPercent(from, run.toMs),
    toolCpuPercent: run.toolCpuPercent,
    missing: numRecords - t.records,
  };
}

/** A `minnow perf produce` run's figures, with the broker's CPU over its load window (paced: from 3 s in). */
export function fromProduceSummary(
  run: ToolRun<ProduceSummary>,
  peer: RunningPeer,
  paced: boolean,
  asked: number,
): ToolFigures {
  const s = run.summary;
  const from = Date.parse(s.startedAt);
  return {
    tool: 'minnow perf produce',
    records: s.records,
    recordsPerSec: s.recordsPerSec,
    mbPerSec: s.mbPerSec,
    p50Ms: s.latency.p50Ms,
    p99Ms: s.latency.p99Ms,
    p999Ms: s.latency.p999Ms,
    brokerCpuPercent: peer.sampler.cpuPercent(from + (paced ? STEADY_AFTER_MS : 0), from + s.elapsedMs),
    toolCpuPercent: run.toolCpuPercent,
    missing: asked - s.records,
  };
}

/** `minnow perf produce` with kafka-producer-perf-test's client defaults (batch 16 KiB, 5 in flight). */
async function minnowProducePerf(
  peer: RunningPeer,
  topic: string,
  numRecords: number,
  recordSize: number,
  throughput: number,
): Promise<ToolFigures> {
  log(`  minnow perf produce: ${numRecords} x ${recordSize} B at ${throughput < 0 ? 'max' : `${throughput}/s`}`);
  const args =
    throughput > 0
      ? pacedArgs(peer.bootstrap, topic, { numRecords }, throughput, '5s')
      : produceArgs(peer.bootstrap, topic, recordSize, CONFIGS_1K[0]!, [
          '--num-records',
          numRecords,
          '--throughput',
          -1,
          '--report-interval',
          '5s',
        ]);
  const run = await perf<ProduceSummary>('produce', args, [0], (line) => log(`  ${line}`));
  return fromProduceSummary(run, peer, throughput > 0, numRecords);
}

/** Both tools on one fresh broker; the produce scenario's figures of that broker. */
export async function produceScenario(
  peer: RunningPeer,
  kafkaVersion: string,
  id: PeerId,
  records: number,
  recordSize: number,
  throughput: number,
): Promise<{ result: PeerScenarioResult; kptTopic: string }> {
  const kptTopic = `kpt-${recordSize}`;
  const from = Date.now();
  const runs = [
    await kafkaProducerPerf(peer, kafkaVersion, kptTopic, records, recordSize, throughput),
    await minnowProducePerf(peer, `mperf-${recordSize}`, records, recordSize, throughput),
  ];
  const peak = peakBetween(peer.sampler, from, Date.now());
  return {
    kptTopic,
    result: {
      peer: id,
      runs,
      startupMs: peer.startupMs,
      idleRssBytes: peer.idleRssBytes,
      // VmHWM: nothing else ran on this broker before these loads.
      peakRssBytes: Math.max(peak?.rssBytes ?? NaN, ...peer.sampler.samples.map((x) => x.hwmBytes)),
      peakAnonBytes: peak?.anonBytes ?? NaN,
      payloadBytes: runs.reduce((sum, r) => sum + r.records * recordSize, 0),
    },
  };
}

/** Reads per consume tool: a read of the 500 MB topic lasts 1-3 s, and one such window moved by ±20 %. */
export const CONSUME_READS = 3;

/** The read with the median MB/s (its CPU figures with it). */
export function medianRead(reads: ToolFigures[]): ToolFigures {
  if (reads.length === 0) throw new Error('medianRead: no reads');
  return [...reads].sort((a, b) => a.mbPerSec - b.mbPerSec)[Math.floor(reads.length / 2)]!;
}

/**
 * Reads the 1 KiB topic kafka-producer-perf-test wrote, with each consume tool (1 MiB fetches,
 * Kafka's default), CONSUME_READS times each from the start: the figures are the median read's.
 */
export async function consumeScenario(
  peer: RunningPeer,
  kafkaVersion: string,
  id: PeerId,
  topic: string,
  records: number,
  base: PeerScenarioResult,
): Promise<PeerScenarioResult> {
  const from = Date.now();
  const kafkaReads: ToolFigures[] = [];
  const minnowReads: ToolFigures[] = [];
  for (let read = 1; read <= CONSUME_READS; read++) {
    log(`  kafka-consumer-perf-test: ${records} records of ${topic} (read ${read} of ${CONSUME_READS})`);
    kafkaReads.push(await kafkaConsumerRead(peer, kafkaVersion, topic, records));
  }
  for (let read = 1; read <= CONSUME_READS; read++) {
    log(`  minnow perf consume: ${topic} (read ${read} of ${CONSUME_READS})`);
    minnowReads.push(await minnowConsumerRead(peer, topic, records));
  }
  const peak = peakBetween(peer.sampler, from, Date.now());
  const kafkaTool = medianRead(kafkaReads);
  const minnowTool = medianRead(minnowReads);
  return {
    peer: id,
    runs: [kafkaTool, minnowTool],
    startupMs: base.startupMs,
    idleRssBytes: base.idleRssBytes,
    peakRssBytes: peak?.rssBytes ?? NaN,
    peakAnonBytes: peak?.anonBytes ?? NaN,
  };
}

/** One kafka-consumer-perf-test read of the whole topic (a new group: from the start). */
async function kafkaConsumerRead(
  peer: RunningPeer,
  kafkaVersion: string,
  topic: string,
  records: number,
): Promise<ToolFigures> {
  const k = await runKafkaTool(
    'ConsumerPerformance',
    // --timeout is the longest wait for records: Kafka creates __consumer_offsets (50 partitions) at the first join.
    ['--bootstrap-server', peer.bootstrap, '--topic', topic, '--messages', records, '--timeout', 60_000],
    kafkaVersion,
  );
  const row = consumerPerfRow(k.output);
  return {
    tool: 'kafka-consumer-perf-test',
    records: row.records,
    // fetch.*: without the group join (rebalance.time.ms), which Kafka delays by group.initial.rebalance.delay.ms.
    recordsPerSec: row.fetchRecordsPerSec,
    mbPerSec: row.fetchMbPerSec,
    p50Ms: NaN,
    p99Ms: NaN,
    p999Ms: NaN,
    brokerCpuPercent: peer.sampler.cpuPercent(k.toMs - row.fetchMs, k.toMs),
    toolCpuPercent: k.toolCpuPercent,
    missing: records - row.records,
  };
}

/** One `minnow perf consume` read of the whole topic (no group: from the start). */
async function minnowConsumerRead(peer: RunningPeer, topic: string, records: number): Promise<ToolFigures> {
  const m = await perf<ConsumeSummary>('consume', [
    '--bootstrap-server',
    peer.bootstrap,
    '--topic',
    topic,
    '--fetch-size',
    MiB,
    '--timeout',
    '60s',
  ]);
  const s = m.summary;
  const mFrom = Date.parse(s.startedAt);
  return {
    tool: 'minnow perf consume',
    records: s.records,
    recordsPerSec: s.fetchRecordsPerSec,
    mbPerSec: s.fetchMbPerSec,
    p50Ms: NaN,
    p99Ms: NaN,
    p999Ms: NaN,
    brokerCpuPercent: peer.sampler.cpuPercent(mFrom, mFrom + s.elapsedMs),
    toolCpuPercent: m.toolCpuPercent,
    missing: records - s.records,
  };
}
