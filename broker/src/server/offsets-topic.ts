// `__consumer_offsets`, present as Kafka presents it. Kafka creates it (50 partitions, compacted,
// internal) at the first FindCoordinator for a group and keeps committed offsets in it. minnow keeps
// them in its database, yet clients look for the topic: franz-go's regex tests expect it listed as
// internal (client-side regexes skip it by that flag) and assigned by a KIP-848 regex that names it
// (Kafka's broker-side regexes do not skip internal topics), lag tools list it. So it is created the
// same way, as an ordinary stored topic that stays empty: reads see no records, and producing to it
// is refused as Kafka refuses a client (INVALID_TOPIC_EXCEPTION, "Cannot append to internal topic").
import { catalogChanges } from '../keyed-serial';
import { StorageError } from '../storage/storage-error';
import type { BrokerContext } from './context';

export const OFFSETS_TOPIC = '__consumer_offsets';
/** Kafka's offsets.topic.num.partitions default. */
export const OFFSETS_TOPIC_PARTITIONS = 50;
/** The configs Kafka creates it with (GroupCoordinatorService.groupMetadataTopicConfigs). */
export const OFFSETS_TOPIC_CONFIGS: Readonly<Record<string, string>> = {
  'cleanup.policy': 'compact',
  'compression.type': 'producer',
  'segment.bytes': '104857600',
};

/**
 * Creates `__consumer_offsets` if it is missing (FindCoordinator for a group, as Kafka's
 * KafkaApis.getCoordinator does). A failure is logged and left: the coordinator answer does not
 * depend on the topic, and the next FindCoordinator tries again.
 */
export async function ensureOffsetsTopic(broker: BrokerContext): Promise<void> {
  if (await broker.storage.topic(OFFSETS_TOPIC)) return;
  await catalogChanges.run(broker.storage, async () => {
    if (await broker.storage.topic(OFFSETS_TOPIC)) return; // created while this call waited its turn
    try {
      await broker.storage.createTopic(OFFSETS_TOPIC, OFFSETS_TOPIC_PARTITIONS, { ...OFFSETS_TOPIC_CONFIGS });
      broker.logger.info('created the internal topic (it stays empty: offsets are kept in the database)', {
        topic: OFFSETS_TOPIC,
        partitions: OFFSETS_TOPIC_PARTITIONS,
      });
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      // Another broker on the same database created it first, or the disk is full.
      if (await broker.storage.topic(OFFSETS_TOPIC)) return;
      broker.logger.warn('could not create the internal topic; FindCoordinator will try again', {
        topic: OFFSETS_TOPIC,
        err,
      });
    }
  });
}
