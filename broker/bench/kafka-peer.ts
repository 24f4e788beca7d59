// Apache Kafka as a peer in the bench (npm run bench:peers): the kafka-oracle's single-node KRaft
// broker started the way bin/kafka-server-start.sh starts it, and Kafka's own load tools
// (kafka-tools: ProducerPerformance = kafka-producer-perf-test, ConsumerPerformance =
// kafka-consumer-perf-test) run as bin/kafka-run-class.sh runs them, from the same Maven-resolved
// jars (broker/tools/kafka-oracle/pom.xml), so the figures compare with runs of the real scripts.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { resolveKafkaJars, RunningKafka, serverProperties, startKafka } from '../tools/kafka-oracle/kafka';
import { Sampler } from './proc';
import { log } from './processes';

/** kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS (Kafka 4.x), for the broker and the tools alike. */
export const KAFKA_JVM_PERFORMANCE_OPTS = [
  '-server',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-XX:MaxInlineLevel=15',
  '-Djava.awt.headless=true',
];

/** The tools print numbers with String.format: an English locale keeps commas out of them. */
const ENGLISH_NUMBERS = ['-Duser.language=en', '-Duser.country=US'];

/** kafka-server-start.sh's KAFKA_HEAP_OPTS when unset: -Xmx1G -Xms1G. */
export const KAFKA_DEFAULT_HEAP = '1G';

/**
 * The heap a 1 GiB t3.micro leaves Kafka: a JVM's resident memory is its heap plus ~150-200 MiB
 * outside it (metaspace for Kafka's ~90 jars, JIT code cache, G1's remembered sets, thread stacks
 * for ~70 threads, NIO buffers), so -Xmx256m puts the broker at ~400-450 MiB; with ~150 MiB for the
 * kernel, sshd and the SSM/CloudWatch agents that leaves ~400 MiB of page cache for the log
 * segments that consumers read. -Xmx512m would leave ~150 MiB, and a 1G heap cannot fit at all.
 */
export const KAFKA_T3_MICRO_HEAP = '256m';

/** kafka-run-class.sh's KAFKA_HEAP_OPTS for the tools when unset: -Xmx256M. */
export const KAFKA_TOOL_HEAP = ['-Xmx256M'];

/** What the tables print under each Kafka figure: the JVM flags and broker settings, for a rerun. */
export function kafkaSettingsText(version: string): string {
  const props = serverProperties({ dataDir: '<fresh temp dir>', port: 0, controllerPort: 0 })
    .trim()
    .split('\n')
    .map((l) => l.replace(/127\.0\.0\.1:0\b/g, '127.0.0.1:<free port>'));
  return [
    `Apache Kafka ${version} (org.apache.kafka:kafka_2.13 and kafka-tools ${version} from Maven Central), one JVM in KRaft mode (broker + controller), \`kafka.Kafka server.properties\`.`,
    `JVM: ${process.env.KAFKA_ORACLE_JAVA ?? 'java'} -Xms<heap> -Xmx<heap> ${KAFKA_JVM_PERFORMANCE_OPTS.join(' ')} (kafka-server-start.sh and kafka-run-class.sh defaults); heap ${KAFKA_DEFAULT_HEAP} (kafka-server-start.sh's default) or ${KAFKA_T3_MICRO_HEAP} (what a 1 GiB t3.micro leaves it).`,
    `Tools: kafka-producer-perf-test / kafka-consumer-perf-test as \`java ${KAFKA_TOOL_HEAP.join(' ')} ${KAFKA_JVM_PERFORMANCE_OPTS.join(' ')} -cp <jars> org.apache.kafka.tools.ProducerPerformance|ConsumerPerformance ...\`.`,
    `server.properties (all else Kafka's defaults): ${props.map((p) => `\`${p}\``).join(', ')}.`,
    'as shipped: log.flush.interval.messages and log.flush.interval.ms unset, so no fsync per message: a produce is acknowledged once it is in the page cache (safe against a broker crash, not a power loss; Kafka relies on replication, here one replica) and segments are fsynced when they roll.',
  ].join('\n');
}

export interface KafkaPeer {
  kafka: RunningKafka;
  /** Kafka's log.dirs, whose du is the bytes on disk. */
  logDirs: string;
}

/** A fresh single-node Kafka (new log dir) with `heap`, polled every 50 ms for its first Metadata answer. */
export async function startKafkaPeer(heap: string, kafkaVersion: string): Promise<KafkaPeer> {
  const kafka = await startKafka({
    heap,
    kafkaVersion,
    jvmOptions: [...KAFKA_JVM_PERFORMANCE_OPTS, ...ENGLISH_NUMBERS],
    keepDataDir: true, // measured with du after stop; peers.ts removes it
    pollMs: 50,
    startTimeoutMs: 180_000,
    log: (l) => log(`  kafka: ${l}`),
  });
  return { kafka, logDirs: path.join(kafka.dataDir, 'logs') };
}

export interface KafkaToolRun {
  output: string;
  fromMs: number;
  toMs: number;
  /** The tool JVM's CPU over its whole run (start-up included), % of one core. */
  toolCpuPercent: number;
}

/** Runs a kafka-tools main class; progress lines go to the log as they come. Throws on a non-zero exit. */
export async function runKafkaTool(
  mainClass: 'ProducerPerformance' | 'ConsumerPerformance',
  args: (string | number)[],
  kafkaVersion: string,
): Promise<KafkaToolRun> {
  const jars = await resolveKafkaJars({ kafkaVersion, log });
  const java = process.env.KAFKA_ORACLE_JAVA ?? 'java';
  const full = [
    ...KAFKA_TOOL_HEAP,
    ...KAFKA_JVM_PERFORMANCE_OPTS,
    ...ENGLISH_NUMBERS,
    '-cp',
    path.join(jars, '*'),
    `org.apache.kafka.tools.${mainClass}`,
    ...args.map(String),
  ];
  const fromMs = Date.now();
  const child = spawn(java, full, { stdio: ['ignore', 'pipe', 'pipe'] });
  const sampler = child.pid !== undefined ? new Sampler(child.pid, 200) : undefined;
  let output = '';
  let logged = 0; // output up to here has been looked at for progress lines
  const onData = (d: Buffer) => {
    output += d.toString();
    const end = output.lastIndexOf('\n') + 1; // whole lines only: a chunk may end mid-line
    for (const line of output.slice(logged, end).split('\n'))
      if (/records sent|^\d{4}-/.test(line)) log(`  ${line.trim()}`);
    logged = Math.max(logged, end);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`could not run ${java}: ${err.message}; is a JDK 17+ on PATH?`)));
    child.once('close', (c) => resolve(c));
  });
  const toMs = Date.now();
  sampler?.stop();
  if (code !== 0)
    throw new Error(
      `${mainClass} ${args.join(' ')} exited ${code}; its output ends:\n${output.split('\n').slice(-20).join('\n')}`,
    );
  return { output, fromMs, toMs, toolCpuPercent: sampler?.cpuPercent(fromMs, toMs) ?? NaN };
}
