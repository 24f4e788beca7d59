// Where a partition's leader and a key's coordinator are: a pure function of the live set, so
// every broker with the same view (the same cluster epoch) gives clients the same answer.
import type { BrokerNode } from './cluster';

/** Java's String.hashCode (UTF-16 code units), as Kafka places groups: Utils.abs(groupId.hashCode). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.toPositive: drops the sign bit (Math.abs(-2^31) would stay negative). */
const toPositive = (n: number) => n & 0x7fffffff;

/**
 * live[hash(topic) + partition mod n]: a topic's partitions go round the brokers from a start the
 * name picks, as Kafka's replica assignment does, so load spreads even for one topic.
 */
export function leaderIndex(topic: string, partition: number, n: number): number {
  return toPositive((javaStringHash(topic) + partition) | 0) % n;
}

export function coordinatorIndex(key: string, n: number): number {
  return toPositive(javaStringHash(key)) % n;
}

/** `brokers` sorted by node id and not empty. */
export function leaderOf(brokers: readonly BrokerNode[], topic: string, partition: number): BrokerNode {
  return brokers[leaderIndex(topic, partition, brokers.length)]!;
}

export function coordinatorOf(brokers: readonly BrokerNode[], key: string): BrokerNode {
  return brokers[coordinatorIndex(key, brokers.length)]!;
}
