// OffsetFetch (key 9): v0-9. v0 read ZooKeeper-stored offsets in Kafka 3.x (gone in 4.0, KIP-896):
// a KRaft Kafka 3.9 answers UNSUPPORTED_VERSION with offset -1 for every partition asked, as here.
// v2+ may ask for all topics (null) and has a top-level error, v5 adds
// leader epochs, v6 is flexible, v7 requireStable (KIP-447: a partition with a transactional offset
// still pending answers the retriable UNSTABLE_OFFSET_COMMIT), v8+ asks for several groups at once
// (KIP-709). A partition without a commit answers offset -1.
import { ApiKey } from '../../../protocol/api-keys';
import { ErrorCode } from '../../../protocol/error-codes';
import type { OffsetFetchRequest, OffsetFetchResponse } from '../../../protocol/messages';
import type { FetchResult, FetchTopic } from '../../../groups/group-offsets';
import { StorageError } from '../../../storage/storage';
import type { ApiHandler, RequestContext } from '../../context';
import { authorizedNames, may } from '../authz';

/**
 * KafkaApis.handleOffsetFetchRequest: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED;
 * topics the principal may not DESCRIBE are left out of "all topics" and, when named, answered
 * TOPIC_AUTHORIZATION_FAILED on each partition.
 */
async function fetchAuthorized(
  ctx: RequestContext,
  groupId: string,
  topics: FetchTopic[] | null,
  requireStable: boolean,
): Promise<FetchResult> {
  const read = () => fetchDescribable(ctx, groupId, topics);
  if (!requireStable || !may(ctx, 'DESCRIBE', 'GROUP', groupId)) return read();
  return markUnstable(ctx, groupId, read);
}

/**
 * OffsetMetadataManager.fetchOffsets with requireStable: each partition the group has a
 * transactional offset pending for (TxnOffsetCommit of a transaction not yet ended) answers
 * UNSTABLE_OFFSET_COMMIT with no offset; the consumer retries until the transaction ends.
 */
async function markUnstable(
  ctx: RequestContext,
  groupId: string,
  read: () => Promise<FetchResult>,
): Promise<FetchResult> {
  // Pending first, then the offsets: a transaction ending in between leaves its partitions marked
  // (the consumer asks again), never an offset from before it reported as stable.
  let pending;
  try {
    pending = await ctx.broker.storage.pendingTransactionalOffsets(groupId);
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    ctx.broker.logger.error('reading pending transactional offsets failed', { groupId, err });
    return { errorCode: ErrorCode.NOT_COORDINATOR, topics: [] };
  }
  const r = await read();
  if (r.errorCode !== ErrorCode.NONE) return r;
  if (pending.length === 0) return r;
  const keys = new Set(pending.map((p) => `${p.topic}\u0000${p.partition}`));
  return {
    ...r,
    topics: r.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) =>
        p.errorCode === ErrorCode.NONE && keys.has(`${t.name}\u0000${p.partition}`)
          ? {
              partition: p.partition,
              offset: -1,
              leaderEpoch: -1,
              metadata: '',
              errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
            }
          : p,
      ),
    })),
  };
}

async function fetchDescribable(
  ctx: RequestContext,
  groupId: string,
  topics: FetchTopic[] | null,
): Promise<FetchResult> {
  if (!may(ctx, 'DESCRIBE', 'GROUP', groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
  const groups = ctx.broker.groups;
  if (topics === null) {
    const r = await groups.fetchOffsets(groupId, null);
    const describable = authorizedNames(
      ctx,
      'DESCRIBE',
      'TOPIC',
      r.topics.map((t) => t.name),
    );
    return { ...r, topics: r.topics.filter((t) => describable.has(t.name)) };
  }
  const describable = authorizedNames(
    ctx,
    'DESCRIBE',
    'TOPIC',
    topics.map((t) => t.name),
  );
  const r = await groups.fetchOffsets(
    groupId,
    topics.filter((t) => describable.has(t.name)),
  );
  if (r.errorCode !== ErrorCode.NONE) return r;
  const refused = topics
    .filter((t) => !describable.has(t.name))
    .map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partition) => ({
        partition,
        offset: -1,
        leaderEpoch: -1,
        metadata: '',
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      })),
    }));
  return { ...r, topics: [...r.topics, ...refused] };
}

export const offsetFetchHandler: ApiHandler<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: ApiKey.OffsetFetch,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req) {
    if (ctx.apiVersion === 0) {
      const partitions = (indexes: number[]) =>
        indexes.map((partitionIndex) => ({
          partitionIndex,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
        }));
      return {
        throttleTimeMs: 0,
        topics: (req.topics ?? []).map((t) => ({
          name: t.name ?? '',
          partitions: partitions(t.partitionIndexes ?? []),
        })),
      };
    }
    const toTopics = (topics: { name?: string; partitionIndexes?: number[] }[] | null | undefined) =>
      topics === null || topics === undefined
        ? null
        : topics.map((t) => ({ name: t.name ?? '', partitions: t.partitionIndexes ?? [] }));
    const partitionsOut = (r: FetchResult) =>
      r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partition,
          committedOffset: BigInt(p.offset),
          committedLeaderEpoch: p.leaderEpoch,
          metadata: p.metadata,
          errorCode: p.errorCode,
        })),
      }));
    if (ctx.apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: await Promise.all(
          (req.groups ?? []).map(async (g) => {
            // v9+ (KIP-848): a consumer-protocol member fetches with its member id and epoch.
            const memberError =
              ctx.apiVersion >= 9
                ? ctx.broker.groups.offsetFetchMemberError(g.groupId ?? '', g.memberId ?? null, g.memberEpoch ?? -1)
                : ErrorCode.NONE;
            if (memberError !== ErrorCode.NONE) return { groupId: g.groupId ?? '', errorCode: memberError, topics: [] };
            const r = await fetchAuthorized(ctx, g.groupId ?? '', toTopics(g.topics), req.requireStable ?? false);
            return { groupId: g.groupId ?? '', errorCode: r.errorCode, topics: partitionsOut(r) };
          }),
        ),
      };
    }
    // v1 has no "all topics" form: a null list is not valid there, treat it as empty.
    const topics = ctx.apiVersion < 2 ? (toTopics(req.topics) ?? []) : toTopics(req.topics);
    const r = await fetchAuthorized(
      ctx,
      req.groupId ?? '',
      topics,
      ctx.apiVersion >= 7 && (req.requireStable ?? false),
    );
    let out = partitionsOut(r);
    if (ctx.apiVersion < 2 && r.errorCode !== 0) {
      // No top-level error before v2: put it on every partition asked for.
      out = (topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: r.errorCode,
        })),
      }));
    }
    return { throttleTimeMs: 0, errorCode: r.errorCode, topics: out };
  },
};
