// Kafka's topic name rules (org.apache.kafka.common.internals.Topic#validate).
const LEGAL = /^[a-zA-Z0-9._-]+$/;
export const MAX_TOPIC_NAME_LENGTH = 249;

/** Null when the name is legal, else why not. */
export function topicNameError(name: string | null | undefined): string | null {
  if (!name) return 'topic name is empty';
  if (name === '.' || name === '..') return `topic name "${name}" is not allowed`;
  if (name.length > MAX_TOPIC_NAME_LENGTH) return `topic name is ${name.length} characters long, the limit is ${MAX_TOPIC_NAME_LENGTH}`;
  if (!LEGAL.test(name)) return `topic name "${name}" has characters other than ASCII letters, digits, '.', '_' and '-'`;
  return null;
}
