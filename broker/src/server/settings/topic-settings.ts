// Topics and their logs: auto-creation, partition bounds, retention and compaction.
import { bool, int, Setting } from './setting';

export interface TopicSettings {
  autoCreateTopics: boolean;
  numPartitions: number;
  /** How often the retention task runs. */
  retentionCheckIntervalMs: number;
  /** How long the compactor sleeps when it has nothing to clean (log.cleaner.backoff.ms). */
  logCleanerBackoffMs: number;
  /** Memory for one compaction pass's key -> offset map (log.cleaner.dedupe.buffer.size). */
  logCleanerDedupeBytes: number;
  /** Partitions of all topics together (KIP-578's max.partitions, never merged into Kafka). */
  maxPartitions: number;
  /** Partitions of one topic. */
  maxPartitionsPerTopic: number;
  /** Partitions one CreateTopics / CreatePartitions / Metadata request may add (Kafka 4.0: 10,000). */
  maxPartitionsPerRequest: number;
}

export const TOPIC_SETTINGS = [
  {
    key: 'autoCreateTopics',
    env: 'AUTO_CREATE_TOPICS_ENABLE',
    flag: 'auto-create-topics',
    doc: 'create unknown topics on Metadata/Produce (auto.create.topics.enable)',
    default: 'true',
    expected: 'true|false',
    parse: bool,
  },
  {
    key: 'numPartitions',
    env: 'NUM_PARTITIONS',
    flag: 'num-partitions',
    doc: 'partitions of auto-created topics (num.partitions)',
    default: '1',
    expected: 'an integer 1..10000',
    parse: int(1, 10000),
  },
  {
    key: 'retentionCheckIntervalMs',
    env: 'LOG_RETENTION_CHECK_INTERVAL_MS',
    flag: 'retention-check-interval-ms',
    doc: 'how often expired batches are deleted (log.retention.check.interval.ms)',
    default: '300000',
    expected: 'an integer 100..86400000',
    parse: int(100, 86_400_000),
  },
  {
    key: 'logCleanerBackoffMs',
    env: 'LOG_CLEANER_BACKOFF_MS',
    flag: 'log-cleaner-backoff-ms',
    doc: "how long the compactor sleeps when no cleanup.policy=compact partition needs cleaning (log.cleaner.backoff.ms; Kafka's default)",
    default: '15000',
    expected: 'an integer 10..86400000 (ms)',
    parse: int(10, 86_400_000),
  },
  {
    key: 'logCleanerDedupeBytes',
    env: 'MINNOW_LOG_CLEANER_DEDUPE_BYTES',
    flag: 'log-cleaner-dedupe-bytes',
    doc: "memory for a compaction pass's key map (~80 bytes a key); a pass over more keys cleans a prefix of the dirty records and the next pass the rest (Kafka's log.cleaner.dedupe.buffer.size, 128 MiB)",
    default: '16777216',
    expected: 'an integer 65536..1073741824',
    parse: int(65536, 2 ** 30),
  },
  // Partition bounds (server/partition-limits.ts): Kafka has none of them as settings.
  {
    key: 'maxPartitions',
    env: 'MINNOW_MAX_PARTITIONS',
    flag: 'max-partitions',
    doc: 'partitions of all topics together; creating more is refused with POLICY_VIOLATION (KIP-578 max.partitions)',
    default: '10000',
    expected: 'an integer 1..1000000',
    parse: int(1, 1_000_000),
  },
  {
    key: 'maxPartitionsPerTopic',
    env: 'MINNOW_MAX_PARTITIONS_PER_TOPIC',
    flag: 'max-partitions-per-topic',
    doc: 'partitions of one topic; more is refused with INVALID_PARTITIONS',
    default: '10000',
    expected: 'an integer 1..1000000',
    parse: int(1, 1_000_000),
  },
  {
    key: 'maxPartitionsPerRequest',
    env: 'MINNOW_MAX_PARTITIONS_PER_REQUEST',
    flag: 'max-partitions-per-request',
    doc: 'partitions one CreateTopics, CreatePartitions or auto-creating Metadata request may add (Kafka 4.0: 10000); more is refused with POLICY_VIOLATION',
    default: '10000',
    expected: 'an integer 1..1000000',
    parse: int(1, 1_000_000),
  },
] as const satisfies readonly Setting<TopicSettings>[];
