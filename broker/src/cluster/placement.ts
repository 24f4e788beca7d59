// Where a partition's leader and a key's coordinator are: a pure function of the live set, so
// every broker with the same view (the same cluster epoch) gives clients the same answer.
//
// Rendezvous (highest-random-weight) hashing: every live broker scores a key by a hash of (its
// node id, the key) and the best score wins. Each key thus ranks all node ids in one fixed order
// and takes the first live one, so a broker that leaves moves only the keys it owned (each to its
// next in rank) and one that joins takes only keys it now ranks first for: as Kafka, which moves
// only a dead broker's leaderships (live[hash mod n] moved about 2/3 of them from 3 brokers to 2).
//
// A topic's partitions 2k and 2k+1 share one score per broker; 2k takes the highest, 2k+1 the
// lowest: each is still a fixed ranking (one the reverse of the other), and the two always land
// on different brokers, which keeps small topics spread (Kafka's round-robin assignment spreads
// them fully; a pure function that moves no other keys cannot, for more than 2 brokers).
//
// Brokers of different versions may share a database during a rolling update: each records the
// newest formula it knows (cluster_broker.placement; a broker from before the column gets 1), and
// all of them place by the lowest recorded by a live broker, as Kafka enables a feature only once
// every broker supports it (KIP-584). The view carries it, so placement stays a function of the
// epoch. A new formula gets the next number; the older ones stay here while updates from them last.
import type { BrokerNode } from './cluster';

/** live[hash mod n] over the brokers sorted by node id (before rendezvous). */
export const PLACEMENT_MOD_N = 1;
export const PLACEMENT_RENDEZVOUS = 2;
/** The formula this broker records and places by when every live broker knows it. */
export const PLACEMENT_VERSION = PLACEMENT_RENDEZVOUS;

/** murmur3's body step: mixes 32 bits `k` into the running hash `h`. */
function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** murmur3's finaliser: every input bit affects every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units, then the finaliser (FNV's low bits alone mix poorly). */
export function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix(mix(h, s.length));
}

/** A broker's score for a key (unsigned 32 bits). */
export function score(nodeId: number, keyHash: number): number {
  return fmix(mix(mix(0x6d696e6e, keyHash), nodeId));
}

/** The broker ranked first for the key (highest score; node id breaks a tie), or last. */
function pick(brokers: readonly BrokerNode[], keyHash: number, highest: boolean): BrokerNode {
  let best = brokers[0]!;
  let bestScore = score(best.nodeId, keyHash);
  for (let i = 1; i < brokers.length; i++) {
    const b = brokers[i]!;
    const s = score(b.nodeId, keyHash);
    const above = s > bestScore || (s === bestScore && b.nodeId > best.nodeId);
    if (above === highest) {
      best = b;
      bestScore = s;
    }
  }
  return best;
}

/** The key a topic's partition pair (2k, 2k+1) is scored by. */
export function partitionKeyHash(topic: string, partition: number): number {
  return fmix(mix(stringHash(topic), partition >>> 1));
}

/** `brokers`: the live set sorted by node id, not empty; `version`: the formula (PLACEMENT_*). */
export function leaderOf(
  brokers: readonly BrokerNode[],
  topic: string,
  partition: number,
  version = PLACEMENT_VERSION,
): BrokerNode {
  if (version === PLACEMENT_MOD_N) return brokers[modN((javaStringHash(topic) + partition) | 0, brokers.length)]!;
  return pick(brokers, partitionKeyHash(topic, partition), (partition & 1) === 0);
}

export function coordinatorOf(brokers: readonly BrokerNode[], key: string, version = PLACEMENT_VERSION): BrokerNode {
  if (version === PLACEMENT_MOD_N) return brokers[modN(javaStringHash(key), brokers.length)]!;
  return pick(brokers, stringHash(key), true);
}

/** Formula 1's hash: Java's String.hashCode (UTF-16 code units), as Kafka's Utils.abs(groupId.hashCode). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.toPositive (drops the sign bit: Math.abs(-2^31) stays negative), mod n. */
const modN = (hash: number, n: number) => (hash & 0x7fffffff) % n;
