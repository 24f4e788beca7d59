// Committed offsets: OffsetCommit's membership checks (Kafka's validateOffsetCommit), OffsetFetch
// and OffsetDelete, over Storage (the SQLite file), so offsets survive restarts.
import { ErrorCode, errorName } from '../protocol/error-codes';
import { StorageError } from '../storage/storage';
import type { TopicInfo } from '../storage/storage';
import { consumerSubscription } from '../protocol/consumer-protocol';
import { Group, validateCurrentMember } from './group';
import type { GroupRegistry } from './group-registry';
import { GroupState } from './group-state';
import { offsetCommitError } from './consumer/consumer-admin';

/** offset.metadata.max.bytes */
export const OFFSET_METADATA_MAX_BYTES = 4096;

export interface OffsetToCommit {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
}

export interface CommitInput {
  groupId: string;
  /** -1 (with an empty member id) for "simple" consumers that do not use group management. */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  offsets: OffsetToCommit[];
  /** OffsetCommit's version: consumer-protocol members must commit with v9+ (KIP-848). */
  apiVersion?: number;
}

export interface FetchTopic {
  name: string;
  partitions: number[];
}

export interface FetchedPartition {
  partition: number;
  /** -1 when nothing was committed. */
  offset: number;
  leaderEpoch: number;
  metadata: string;
  errorCode: number;
}

export interface FetchResult {
  errorCode: number;
  topics: { name: string; partitions: FetchedPartition[] }[];
}

export interface DeleteOffsetsResult {
  errorCode: number;
  topics: { name: string; partitions: { partition: number; errorCode: number }[] }[];
}

/**
 * One error code per offset, in the order given. The group's commits run one at a time, and the
 * topics are looked up first: the membership check (in memory) and the write it allows follow
 * with no await between them, as Kafka appends under the group's lock.
 */
export function commitOffsets(coord: GroupRegistry, req: CommitInput): Promise<number[]> {
  return coord.offsetWrites.run(req.groupId, () => commitNow(coord, req));
}

async function commitNow(coord: GroupRegistry, req: CommitInput): Promise<number[]> {
  const topics = await topicsOf(
    coord,
    req.offsets.map((o) => o.topic),
  );
  const consumerGroup = coord.consumer.group(req.groupId);
  const groupError = coord.isClosed
    ? ErrorCode.NOT_COORDINATOR
    : consumerGroup
      ? offsetCommitError(consumerGroup, req.memberId, req.generationId, req.apiVersion ?? 9, false)
      : validateCommit(coord.group(req.groupId), req);
  if (groupError !== ErrorCode.NONE) {
    coord.logger.debug('offset commit refused', {
      groupId: req.groupId,
      memberId: req.memberId,
      generationId: req.generationId,
      error: errorName(groupError),
    });
    return req.offsets.map(() => groupError);
  }
  const errors = req.offsets.map((o) => {
    const topic = topics.get(o.topic);
    if (!topic || o.partition < 0 || o.partition >= topic.partitionCount) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (o.metadata !== null && Buffer.byteLength(o.metadata) > OFFSET_METADATA_MAX_BYTES)
      return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    return ErrorCode.NONE;
  });
  const valid = req.offsets
    .filter((_, i) => errors[i] === ErrorCode.NONE)
    .map((o) => ({ ...o, metadata: o.metadata ?? '' }));
  if (valid.length === 0) return errors;
  try {
    await coord.storage.commitOffsets(req.groupId, valid, coord.now());
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    // As Kafka does for a failed append to __consumer_offsets: the client retries elsewhere/later.
    coord.logger.error('committing offsets failed', { groupId: req.groupId, err });
    return errors.map((e) => (e === ErrorCode.NONE ? ErrorCode.NOT_COORDINATOR : e));
  }
  return errors;
}

/**
 * Kafka's validateOffsetCommit. A group we do not hold in memory is an Empty one (offsets only),
 * except that a generation >= 0 for it is a stale member (ILLEGAL_GENERATION, e.g. after a restart).
 */
function validateCommit(group: Group | undefined, req: CommitInput): number {
  if (!group) {
    if (req.generationId >= 0) return ErrorCode.ILLEGAL_GENERATION;
    return req.memberId !== '' || req.groupInstanceId !== null ? ErrorCode.UNKNOWN_MEMBER_ID : ErrorCode.NONE;
  }
  if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return error;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  } else if (!group.is(GroupState.Empty)) {
    // Only members may commit to a group that has members.
    return ErrorCode.UNKNOWN_MEMBER_ID;
  }
  // The member has its JoinGroup answer but not its assignment yet: let it retry after SyncGroup.
  if (group.is(GroupState.CompletingRebalance)) return ErrorCode.REBALANCE_IN_PROGRESS;
  return ErrorCode.NONE;
}

/** Committed offsets of the given partitions (offset -1 where none), or of all when `topics` is null. */
export async function fetchOffsets(
  coord: GroupRegistry,
  groupId: string,
  topics: FetchTopic[] | null,
): Promise<FetchResult> {
  if (coord.isClosed) return { errorCode: ErrorCode.NOT_COORDINATOR, topics: [] };
  let stored;
  try {
    stored = await coord.storage.fetchOffsets(groupId);
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    coord.logger.error('reading committed offsets failed', { groupId, err });
    return { errorCode: ErrorCode.NOT_COORDINATOR, topics: [] };
  }
  const byTopic = new Map<string, Map<number, FetchedPartition>>();
  for (const o of stored) {
    let parts = byTopic.get(o.topic);
    if (!parts) byTopic.set(o.topic, (parts = new Map()));
    parts.set(o.partition, {
      partition: o.partition,
      offset: o.offset,
      leaderEpoch: o.leaderEpoch,
      metadata: o.metadata ?? '',
      errorCode: ErrorCode.NONE,
    });
  }
  if (topics === null) {
    return {
      errorCode: ErrorCode.NONE,
      topics: [...byTopic.entries()].map(([name, parts]) => ({
        name,
        partitions: [...parts.values()].sort((a, b) => a.partition - b.partition),
      })),
    };
  }
  return {
    errorCode: ErrorCode.NONE,
    topics: topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map(
        (p) =>
          byTopic.get(t.name)?.get(p) ?? {
            partition: p,
            offset: -1,
            leaderEpoch: -1,
            metadata: '',
            errorCode: ErrorCode.NONE,
          },
      ),
    })),
  };
}

/**
 * OffsetDelete (KIP-496): any partition of an Empty group; for a consumer group with members only
 * topics it is not subscribed to (else GROUP_SUBSCRIBED_TO_TOPIC).
 */
export function deleteOffsets(
  coord: GroupRegistry,
  groupId: string,
  topics: FetchTopic[],
): Promise<DeleteOffsetsResult> {
  return coord.offsetWrites.run(groupId, () => deleteNow(coord, groupId, topics));
}

/** Reads first, then the group's state (in memory) and the write with no await between them. */
async function deleteNow(coord: GroupRegistry, groupId: string, topics: FetchTopic[]): Promise<DeleteOffsetsResult> {
  const fail = (errorCode: number): DeleteOffsetsResult => ({ errorCode, topics: [] });
  if (coord.isClosed) return fail(ErrorCode.NOT_COORDINATOR);
  const infos = await topicsOf(
    coord,
    topics.map((t) => t.name),
  );
  const hasStored = coord.group(groupId) ? true : (await coord.storage.fetchOffsets(groupId)).length > 0;
  const group = coord.group(groupId);
  let subscribed: Set<string> | null = null; // null: the group has no members, everything may go
  if (group && !group.is(GroupState.Empty)) {
    if (group.is(GroupState.Dead)) return fail(ErrorCode.GROUP_ID_NOT_FOUND);
    if (group.protocolType !== 'consumer') return fail(ErrorCode.NON_EMPTY_GROUP);
    subscribed = subscribedTopics(group);
  } else if (!group && !hasStored) {
    return fail(ErrorCode.GROUP_ID_NOT_FOUND);
  }
  const deletable: { topic: string; partition: number }[] = [];
  const result = topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((partition) => {
      const info = infos.get(t.name);
      if (!info || partition < 0 || partition >= info.partitionCount)
        return { partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
      // Unknown subscriptions (undecodable metadata) count as subscribed to everything.
      if (subscribed !== null && (subscribed.size === 0 || subscribed.has(t.name)))
        return { partition, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
      deletable.push({ topic: t.name, partition });
      return { partition, errorCode: ErrorCode.NONE };
    }),
  }));
  if (deletable.length > 0) {
    try {
      await coord.storage.deleteOffsets(groupId, deletable);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      coord.logger.error('deleting offsets failed', { groupId, err });
      return fail(ErrorCode.NOT_COORDINATOR); // as a failed commit: the client retries
    }
  }
  return { errorCode: ErrorCode.NONE, topics: result };
}

/** The named topics as stored now (absent: no such topic), each looked up once. */
async function topicsOf(coord: GroupRegistry, names: readonly string[]): Promise<Map<string, TopicInfo>> {
  const out = new Map<string, TopicInfo>();
  for (const name of new Set(names)) {
    const t = await coord.storage.topic(name);
    if (t) out.set(name, t);
  }
  return out;
}

/** Topics the members subscribe to (selected protocol's metadata); empty set if any is undecodable. */
function subscribedTopics(group: Group): Set<string> {
  const topics = new Set<string>();
  for (const m of group.members.values()) {
    const sub = consumerSubscription(m.metadataFor(group.protocolName ?? m.protocols[0]?.name ?? ''));
    if (!sub) return new Set();
    for (const t of sub.topics) topics.add(t);
  }
  return topics;
}
