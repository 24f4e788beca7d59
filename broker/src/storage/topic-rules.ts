// The checks and copies every engine's topic catalog makes alike (memory, SQLite, PostgreSQL), so
// that a topic refused by one engine is refused by all with the same words.
import { StorageError } from './storage-error';
import type { TopicInfo } from './topic-store';

/** Thrown when a topic's partition count is not a positive integer (create or grow). */
export function checkPartitionCount(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 1)
    throw new StorageError(`topic "${name}": partition count ${n} must be a positive integer`);
}

/** Thrown when growing a topic would remove partitions: Kafka only adds them (CreatePartitions). */
export function checkNoShrink(name: string, current: number, wanted: number): void {
  if (wanted < current) {
    throw new StorageError(
      `topic "${name}" has ${current} partitions, cannot shrink to ${wanted}; Kafka only adds partitions`,
    );
  }
}

/** The error for an operation on a topic that is not in the catalog. */
export function unknownTopicError(name: string): StorageError {
  return new StorageError(`topic "${name}" does not exist; create it first`);
}

/** A copy the caller may change without changing the catalog's entry. */
export function copyTopicInfo(info: TopicInfo): TopicInfo {
  return { ...info, configs: { ...info.configs } };
}

/** The error for creating a topic whose name is taken. */
export function topicExistsError(name: string): StorageError {
  return new StorageError(`topic "${name}" already exists; delete it first or pick another name`);
}

/** The error for creating a topic with an id another topic holds. */
export function topicIdTakenError(topicId: string, holder: string): StorageError {
  return new StorageError(`topic id ${topicId} is already used by topic "${holder}"`);
}
