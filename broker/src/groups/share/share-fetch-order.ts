// In which order a ShareFetch visits its session's partitions, and which of them it may read, as
// Kafka 4.1.1 does (SharePartitionManager, DelayedShareFetch, PartitionRotateStrategy).
//
// - Rotation: the list starts at the partition `sessionEpoch % count` (ROUND_ROBIN), so that when
//   MaxRecords or MaxBytes run out before the last partition, the next request starts elsewhere.
// - Share-partitions not yet initialized: Kafka creates a share-partition at its group's first
//   fetch and initializes it asynchronously (its state is read from the share coordinator); the
//   waiting fetch completes as soon as the partitions ready by then have records. Partitions
//   already initialized are read first; a new one is read only while nothing was acquired, in
//   order, so a first fetch over two partitions with records answers one of them and the next
//   fetch the other (librdkafka's 0179 relies on it). The rest are still created by that fetch,
//   their start offset set then (share.auto.offset.reset), as Kafka's initialization does.

/** Kafka's PartitionRotateStrategy.ROUND_ROBIN: epochs <= 0 and a single partition do not rotate. */
export function rotateForEpoch<T>(items: readonly T[], sessionEpoch: number): T[] {
  if (sessionEpoch <= 0 || items.length <= 1) return [...items];
  const at = sessionEpoch % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

export interface FetchPlanStep<T> {
  key: T;
  /** The share-partition must be created (initialized) before it is read. */
  create: boolean;
}

/**
 * The visiting order: the ready partitions (rotated) first, then the ones to create, in the
 * rotated order. The caller reads a `create` step only while the fetch has acquired nothing, and
 * creates it either way.
 */
export function fetchPlan<T>(keys: readonly T[], sessionEpoch: number, isReady: (k: T) => boolean): FetchPlanStep<T>[] {
  const rotated = rotateForEpoch(keys, sessionEpoch);
  return [
    ...rotated.filter(isReady).map((key) => ({ key, create: false })),
    ...rotated.filter((k) => !isReady(k)).map((key) => ({ key, create: true })),
  ];
}
