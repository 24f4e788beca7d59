// Kafka's topic name rules (org.apache.kafka.common.internals.Topic#validate).
const LEGAL = /^[a-zA-Z0-9._-]+$/;
export const MAX_TOPIC_NAME_LENGTH = 249;

/** Null when the name is legal, else why not. */
export function topicNameError(name: string | null | undefined): string | null {
  if (!name) return 'topic name is empty';
  if (name === '.' || name === '..') return `topic name "${name}" is not allowed`;
  if (name.length > MAX_TOPIC_NAME_LENGTH)
    return `topic name is ${name.length} characters long, the limit is ${MAX_TOPIC_NAME_LENGTH}`;
  if (!LEGAL.test(name))
    return `topic name "${name}" has characters other than ASCII letters, digits, '.', '_' and '-'`;
  return null;
}

/**
 * Kafka's internal topics (org.apache.kafka.common.internals.Topic.INTERNAL_TOPICS). Kafka keeps
 * group offsets, transaction state and share-group state in them; minnow keeps those in its
 * database, so these names are never auto-created nor created by a client, and Metadata answers
 * for them as Kafka does for a missing topic it may not auto-create (UNKNOWN_TOPIC_OR_PARTITION,
 * isInternal true).
 */
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set([
  '__consumer_offsets',
  '__transaction_state',
  '__share_group_state',
]);
/** KRaft's metadata log: Kafka refuses to create it like the internal topics (ControllerApis.createTopics). */
export const CLUSTER_METADATA_TOPIC = '__cluster_metadata';

/** Kafka's Topic.isInternal: the isInternal flag Metadata reports. */
export const isInternalTopic = (name: string | null | undefined): boolean =>
  name !== null && name !== undefined && INTERNAL_TOPICS.has(name);

/** Names a client may never create (CreateTopics) nor have auto-created (Metadata). */
export const isReservedTopic = (name: string | null | undefined): boolean =>
  isInternalTopic(name) || name === CLUSTER_METADATA_TOPIC;
