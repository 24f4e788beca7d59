// The group and transaction coordinators' timings, Kafka's names and defaults.
import { int, Setting } from './setting';

export interface CoordinatorSettings {
  /** How long a new group waits for more members before its first rebalance (group.initial.rebalance.delay.ms). */
  groupInitialRebalanceDelayMs: number;
  /** Largest transaction.timeout.ms a producer may ask for (transaction.max.timeout.ms). */
  transactionMaxTimeoutMs: number;
  /** A transactional id idle (not Ongoing) this long is forgotten (transactional.id.expiration.ms). */
  transactionalIdExpirationMs: number;
  /** How often timed-out transactions are aborted and idle ids expired (transaction.abort.timed.out.transaction.cleanup.interval.ms). */
  transactionCleanupIntervalMs: number;
  /** The finalized transaction.version ApiVersions reports (features.ts): 2 lets Java 4.x clients use KIP-890 part 2. */
  transactionVersion: number;
}

export const COORDINATOR_SETTINGS = [
  {
    key: 'groupInitialRebalanceDelayMs',
    env: 'GROUP_INITIAL_REBALANCE_DELAY_MS',
    flag: 'group-initial-rebalance-delay-ms',
    doc: "how long an empty group waits for more members before it assigns partitions (group.initial.rebalance.delay.ms; Kafka's default)",
    default: '3000',
    expected: 'an integer 0..300000',
    parse: int(0, 300_000),
  },
  // Transactions (src/transactions, issue 16): Kafka's names and defaults.
  {
    key: 'transactionMaxTimeoutMs',
    env: 'TRANSACTION_MAX_TIMEOUT_MS',
    flag: 'transaction-max-timeout-ms',
    doc: "largest transaction.timeout.ms a producer may ask for; InitProducerId asking more gets INVALID_TRANSACTION_TIMEOUT (transaction.max.timeout.ms; Kafka's default)",
    default: '900000',
    expected: 'an integer 1..2147483647 (ms)',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'transactionalIdExpirationMs',
    env: 'TRANSACTIONAL_ID_EXPIRATION_MS',
    flag: 'transactional-id-expiration-ms',
    doc: "a transactional id with no transaction going on and no request for this long is forgotten (transactional.id.expiration.ms; Kafka's default, 7 days)",
    default: '604800000',
    expected: 'an integer 1..2147483647 (ms)',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'transactionCleanupIntervalMs',
    env: 'TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS',
    flag: 'transaction-cleanup-interval-ms',
    doc: "how often transactions past their transaction.timeout.ms are aborted (fencing their producer) and expired transactional ids removed (transaction.abort.timed.out.transaction.cleanup.interval.ms; Kafka's default)",
    default: '10000',
    expected: 'an integer 1..2147483647 (ms)',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'transactionVersion',
    env: 'TRANSACTION_VERSION',
    flag: 'transaction-version',
    doc: 'the transaction.version feature level ApiVersions reports as finalized (kafka-features describe shows it): at 2, as on a new Kafka 4 cluster, Java 4.x producers use KIP-890 part 2 (no AddPartitionsToTxn, an epoch bump per transaction); at 0 or 1 they keep version 1, as every older client does. Kafka sets it with kafka-storage format --feature or kafka-features upgrade/downgrade',
    default: '2',
    expected: 'an integer 0..2',
    parse: int(0, 2),
  },
] as const satisfies readonly Setting<CoordinatorSettings>[];
