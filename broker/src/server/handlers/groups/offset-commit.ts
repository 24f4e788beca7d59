// OffsetCommit (key 8): v0-9, as Kafka 3.9 serves them (Kafka 4.0 dropped v0-1, KIP-896).
// v0 has no generation or member: Kafka 3.x stores it in ZooKeeper, and a KRaft broker (no
// ZooKeeper, like minnow) answers UNSUPPORTED_VERSION for every partition (KafkaApis.
// commitOffsetsToZookeeper), after UNKNOWN_TOPIC_OR_PARTITION if no partition named exists.
// v1 adds generation/member (sarama before 1.41 sends it by default) and a per-partition
// commitTimestamp, v2-4 carry retentionTimeMs instead: both only set when Kafka expires the offset,
// and minnow keeps offsets until the group or topic is deleted, so they change nothing here.
// v6 adds committedLeaderEpoch, v7 groupInstanceId, v8 is flexible. Generation -1 with an empty
// member id is a "simple" consumer's commit, accepted while the group has no members. For a KIP-848
// consumer group the generation is the member epoch (v9+): STALE_MEMBER_EPOCH when it is not the
// member's current one (groups/consumer/consumer-admin.ts).
import { ApiKey } from '../../../protocol/api-keys';
import { ErrorCode } from '../../../protocol/error-codes';
import type { OffsetCommitRequest, OffsetCommitResponse } from '../../../protocol/messages';
import type { Storage } from '../../../storage/storage';
import type { ApiHandler } from '../../context';
import { authorizedNames, may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';

/** Kafka 3.9 in KRaft mode for a v0 (ZooKeeper-stored) commit. */
async function v0Response(storage: Storage, req: OffsetCommitRequest): Promise<OffsetCommitResponse> {
  let anyValid = false;
  for (const t of req.topics) {
    const info = await storage.topic(t.name);
    if (info && t.partitions.some((p) => p.partitionIndex >= 0 && p.partitionIndex < info.partitionCount))
      anyValid = true;
  }
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: anyValid ? ErrorCode.UNSUPPORTED_VERSION : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      })),
    })),
  };
}

export const offsetCommitHandler: ApiHandler<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: ApiKey.OffsetCommit,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    // KafkaApis.handleOffsetCommitRequest: READ on the group (else every partition gets
    // GROUP_AUTHORIZATION_FAILED), then READ on each topic.
    const errorEverywhere = (errorCode: number, topics = req.topics) =>
      topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
      }));
    if (!may(ctx, 'READ', 'GROUP', req.groupId))
      return { throttleTimeMs: 0, topics: errorEverywhere(ErrorCode.GROUP_AUTHORIZATION_FAILED) };
    const readable = authorizedNames(
      ctx,
      'READ',
      'TOPIC',
      req.topics.map((t) => t.name),
    );
    if (readable.size < new Set(req.topics.map((t) => t.name)).size) {
      const allowed = req.topics.filter((t) => readable.has(t.name));
      const answered =
        allowed.length > 0 ? await offsetCommitHandler.handle(ctx, { ...req, topics: allowed }) : { topics: [] };
      const byName = new Map((answered as OffsetCommitResponse).topics.map((t) => [t.name, t] as const));
      return {
        throttleTimeMs: 0,
        topics: req.topics.map(
          (t) => byName.get(t.name) ?? errorEverywhere(ErrorCode.TOPIC_AUTHORIZATION_FAILED, [t])[0]!,
        ),
      };
    }
    if (v === 0) {
      ctx.broker.logger.debug(
        'offset commit v0 refused: Kafka stores v0 commits in ZooKeeper, which a KRaft broker does not have',
        { groupId: req.groupId },
      );
      return v0Response(ctx.broker.storage, req);
    }
    // The coordinator checks the generation against the members it holds (src/cluster).
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    if (notHere !== ErrorCode.NONE) return { throttleTimeMs: 0, topics: errorEverywhere(notHere) };
    const asked = req.topics.flatMap((t) => t.partitions);
    const storable = asked.filter((p) => storableOffset(p.committedOffset));
    const offsets = req.topics.flatMap((t) =>
      t.partitions
        .filter((p) => storableOffset(p.committedOffset))
        .map((p) => ({
          topic: t.name,
          partition: p.partitionIndex,
          offset: Number(p.committedOffset),
          leaderEpoch: v >= 6 ? (p.committedLeaderEpoch ?? -1) : -1,
          metadata: p.committedMetadata,
        })),
    );
    const errors = await ctx.broker.groups.commitOffsets({
      groupId: req.groupId,
      generationId: req.generationIdOrMemberEpoch ?? -1,
      memberId: req.memberId ?? '',
      groupInstanceId: v >= 7 ? (req.groupInstanceId ?? null) : null,
      offsets,
      apiVersion: v,
    });
    const answer = new Map(storable.map((p, i) => [p, errors[i]!] as const));
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: answer.get(p) ?? ErrorCode.INVALID_COMMIT_OFFSET_SIZE,
        })),
      })),
    };
  },
};

/**
 * Offsets are JS numbers in storage (exact up to 2^53 - 1, storage.ts) while Kafka takes any int64.
 * No log reaches 2^53, so a larger commit is refused for its partition (INVALID_COMMIT_OFFSET_SIZE)
 * rather than stored rounded: 2^63 - 1 became 2^63, which no int64 encodes, and the next
 * OffsetFetch answer failed to encode (found by pg-clients; TxnOffsetCommit does the same).
 */
export function storableOffset(offset: bigint): boolean {
  return offset <= BigInt(Number.MAX_SAFE_INTEGER) && offset >= BigInt(Number.MIN_SAFE_INTEGER);
}
