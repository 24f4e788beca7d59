// Kafka's own command-line tools (kafka-topics, kafka-configs, kafka-transactions, kafka-features,
// kafka-reassign-partitions), run from the Kafka jars the oracle resolves (tools/kafka-oracle), as
// their .sh wrappers run them: one JVM per command (started by support/java-launch.ts), against a
// broker on 127.0.0.1. Needs `java` and `mvn` (describeWithTools('java', 'mvn')).
import * as path from 'node:path';
import { DEFAULT_KAFKA_VERSION, resolveKafkaJars } from '../../tools/kafka-oracle/kafka';
import { runJava, type JavaProgram } from './java-launch';

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
  const r = await runJava(kafkaTool(KAFKA_TOOLS[tool], args, await kafkaJars()), { timeoutMs: 120_000 });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** Kafka's tool `main` on the jars in `jars`, as kafka-run-class.sh starts it (its -Xmx256M for tools). */
export function kafkaTool(main: string, args: string[], jars: string): JavaProgram {
  return { classpath: path.join(jars, '*'), main, args, jvmOptions: ['-Xmx256m'] };
}
