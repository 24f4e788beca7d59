// The topic catalog part of the Storage interface (storage.ts composes it): topics, their
// partitions and config overrides.
import type { StorageError } from './storage-error';

export interface TopicInfo {
  name: string;
  /** Kafka's base64url form, stable for the topic's life. */
  topicId: string;
  partitionCount: number;
  /** Only the configs set on the topic (defaults are applied by topic-config.ts). */
  configs: Record<string, string>;
}

/** A topic to create (createTopics). */
export interface NewTopic {
  name: string;
  partitionCount: number;
  configs: Record<string, string>;
  topicId?: string;
}

export interface TopicStore {
  /** Sorted by name. */
  listTopics(): TopicInfo[];
  /** Partitions of all topics together, without listing them (the MINNOW_MAX_PARTITIONS bound). */
  totalPartitions(): number;
  topic(name: string): TopicInfo | undefined;
  topicById(topicId: string): TopicInfo | undefined;
  /** Costs O(its partitions), whatever the number of topics (no catalog reload). */
  createTopic(name: string, partitionCount: number, configs: Record<string, string>, topicId?: string): TopicInfo;
  /** Deletes the topic, its batches, producer state and committed offsets. False if it did not exist. */
  deleteTopic(name: string): boolean;
  /**
   * createTopic for each, answered each on its own (its TopicInfo, or the StorageError createTopic
   * would throw), in as few transactions as the engine can (SQLite: one, a savepoint per topic).
   * Throws only if no topic could be stored (SQLite: the commit failed). CreateTopics' slices.
   */
  createTopics(topics: readonly NewTopic[]): (TopicInfo | StorageError)[];
  /** deleteTopic for each name, answered each on its own, as createTopics. DeleteTopics' slices. */
  deleteTopics(names: readonly string[]): (boolean | StorageError)[];
  /** Grows the topic to `partitionCount` partitions. */
  createPartitions(name: string, partitionCount: number): void;
  /** Sets and removes topic config overrides. */
  alterTopicConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void;
}
