// Kafka's own command-line tools (kafka-topics, kafka-configs, kafka-transactions, kafka-features,
// kafka-reassign-partitions), run from the Kafka jars the oracle resolves (tools/kafka-oracle), as
// their .sh wrappers run them: one JVM per command, against a broker on 127.0.0.1. Needs `java`
// and `mvn` (describeWithTools('java', 'mvn')).
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { DEFAULT_KAFKA_VERSION, resolveKafkaJars } from '../../tools/kafka-oracle/kafka';

/** The main class behind each kafka-*.sh script of Kafka 4.1. */
export const KAFKA_TOOLS = {
  'kafka-topics': 'org.apache.kafka.tools.TopicCommand',
  'kafka-configs': 'kafka.admin.ConfigCommand',
  'kafka-transactions': 'org.apache.kafka.tools.TransactionsCommand',
  'kafka-features': 'org.apache.kafka.tools.FeatureCommand',
  'kafka-reassign-partitions': 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand',
} as const;

export interface KafkaCliResult {
  code: number | null;
  out: string;
  err: string;
}

/** Resolves the jars once (the first run on a machine copies them from Maven's cache). */
export function kafkaJars(): Promise<string> {
  return resolveKafkaJars({ kafkaVersion: DEFAULT_KAFKA_VERSION });
}

/** Runs `tool` with `args` (the --bootstrap-server is the caller's) and collects its output. */
export async function kafkaCli(tool: keyof typeof KAFKA_TOOLS, args: string[]): Promise<KafkaCliResult> {
  const jars = await kafkaJars();
  // A small heap and no JIT tiers: a tool's JVM lives a second or two on shared cores.
  const jvm = ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-Xshare:auto', '-cp', path.join(jars, '*')];
  const child = spawn(process.env.KAFKA_ORACLE_JAVA ?? 'java', [...jvm, KAFKA_TOOLS[tool], ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { code, out, err };
}
