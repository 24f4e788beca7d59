// Bounds on partitions (issue 11): every partition costs catalog memory, a line in every full
// Metadata response and a visit by each retention pass, so a client must not be able to create
// an unbounded number of them. Three bounds, all refusals nothing-created Kafka error codes:
// - per request (MINNOW_MAX_PARTITIONS_PER_REQUEST): Kafka 4.0 refuses a CreateTopics asking
//   for more than 10,000 partitions in all with POLICY_VIOLATION "Excessively large number of
//   partitions per request." for every topic (KAFKA-17870, ReplicationControlManager);
// - per topic (MINNOW_MAX_PARTITIONS_PER_TOPIC): INVALID_PARTITIONS, Kafka's code for a bad count;
// - on the broker (MINNOW_MAX_PARTITIONS): KIP-578's max.partitions / max.broker.partitions
//   (one broker: the same bound), never merged, so POLICY_VIOLATION stands in for its proposed
//   RESOURCE_LIMIT_REACHED code, which Kafka does not have.
import { ErrorCode } from '../protocol/error-codes';
import type { BrokerConfig } from './config';
import type { BrokerContext } from './context';

export interface Refusal {
  errorCode: number;
  errorMessage: string;
}

/** INVALID_PARTITIONS for a topic count outside 1..MINNOW_MAX_PARTITIONS_PER_TOPIC. */
export function topicPartitionsRefusal(config: BrokerConfig, name: string, partitions: number): Refusal | undefined {
  if (partitions >= 1 && partitions <= config.maxPartitionsPerTopic) return undefined;
  const why =
    partitions < 1
      ? 'must be at least 1'
      : `is over the limit per topic of ${config.maxPartitionsPerTopic} (MINNOW_MAX_PARTITIONS_PER_TOPIC)`;
  return { errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: `topic ${name}: ${partitions} partitions ${why}` };
}

/** The per-request refusal (every topic of the request gets it), or undefined when `requested` fits. */
export function requestPartitionsRefusal(config: BrokerConfig, requested: number): Refusal | undefined {
  if (requested <= config.maxPartitionsPerRequest) return undefined;
  return {
    errorCode: ErrorCode.POLICY_VIOLATION,
    errorMessage: `Excessively large number of partitions per request: ${requested} requested, the limit is ${config.maxPartitionsPerRequest} (MINNOW_MAX_PARTITIONS_PER_REQUEST); send them in several requests`,
  };
}

/**
 * The partitions one request adds, checked against the broker total and the per-request bound as
 * it goes (auto-creation in Metadata cannot know its total up front). Reads the stored total at
 * each claim, so topics other requests create meanwhile count too; validate-only claims count
 * only within their request. With `writesLater` (CreateTopics writes a slice of topics at once)
 * claims count as pending until `stored()` says the stored total holds them.
 */
export class PartitionBudget {
  private claimed = 0;
  private pending = 0;

  constructor(
    private readonly broker: BrokerContext,
    /** True for validateOnly: claims are not stored, so they are kept here. */
    private readonly dryRun = false,
    private readonly writesLater = false,
  ) {}

  /** Claims `added` new partitions for `name`; a refusal leaves the budget as it was. */
  async claim(name: string, added: number): Promise<Refusal | undefined> {
    const { config, storage } = this.broker;
    const perRequest = requestPartitionsRefusal(config, this.claimed + added);
    if (perRequest) return perRequest;
    const total = (await storage.totalPartitions()) + this.pending;
    if (total + added > config.maxPartitions) {
      return {
        errorCode: ErrorCode.POLICY_VIOLATION,
        errorMessage: `topic ${name}: ${added} more partitions would bring the broker to ${total + added}, over its limit of ${config.maxPartitions} (MINNOW_MAX_PARTITIONS); delete topics or raise the limit`,
      };
    }
    this.claimed += added;
    if (this.dryRun || this.writesLater) this.pending += added;
    return undefined;
  }

  /** The claims so far were written (or failed): the stored total now holds what they added. */
  stored(): void {
    if (!this.dryRun) this.pending = 0;
  }
}
