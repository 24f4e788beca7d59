// The compactor's state per partition for `minnow topic describe` (issue 17): clean offset, dirty
// ratio, last pass. Kafka has no API for it (its cleaner reports through JMX: max-dirty-percent,
// per cleaner, not per partition), so minnow answers it in DescribeConfigs of a topic as one
// read-only entry, only when a request names it among its configuration keys: a client listing a
// topic's configs never sees it, as Kafka lists only its own names.
import { ConfigSource, ConfigType, type ConfigEntry } from './config-entries';
import { brokerTopicDefaults } from './broker-configs';
import type { Storage } from '../storage/storage';
import { CLEANER_STATE_KEY, type PartitionCleanerReport } from '../protocol/cleaner-state';

export { CLEANER_STATE_KEY };

/** The entry for `topic`: a JSON array of PartitionCleanerReport (partitions without state left out). */
export async function cleanerStateEntry(
  storage: Storage,
  nodeId: number,
  topic: string,
  partitions: number,
  nowMs: number,
): Promise<ConfigEntry> {
  const defaults = await brokerTopicDefaults(storage, nodeId);
  const report: PartitionCleanerReport[] = [];
  for (let p = 0; p < partitions; p++) {
    const s = await storage.cleanerState(topic, p, nowMs, defaults);
    if (s) report.push({ partition: p, ...s });
  }
  return {
    name: CLEANER_STATE_KEY,
    value: JSON.stringify(report),
    readOnly: true,
    source: ConfigSource.DEFAULT_CONFIG,
    isSensitive: false,
    type: ConfigType.STRING,
    documentation: 'minnow: the log cleaner state of each partition (clean offset, dirty ratio, last pass), as JSON',
    synonyms: [],
  };
}
