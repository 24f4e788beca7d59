// OffsetCommit (key 8): v2-9 (v0-1 are gone since Kafka 4.0, KIP-896). v2-4 carry retentionTimeMs
// (ignored: offsets are kept until the group or topic is deleted), v6 adds committedLeaderEpoch, v7
// groupInstanceId, v8 is flexible. Generation -1 with an empty member id is a "simple" consumer's
// commit, accepted while the group has no members.
import { ApiKey } from '../../../protocol/api-keys';
import type { OffsetCommitRequest, OffsetCommitResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';

export const offsetCommitHandler: ApiHandler<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: ApiKey.OffsetCommit,
  minVersion: 2,
  maxVersion: 9,
  handle(ctx, req) {
    const v = ctx.apiVersion;
    const offsets = req.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        offset: Number(p.committedOffset),
        leaderEpoch: v >= 6 ? (p.committedLeaderEpoch ?? -1) : -1,
        metadata: p.committedMetadata,
      })),
    );
    const errors = ctx.broker.groups.commitOffsets({
      groupId: req.groupId,
      generationId: req.generationIdOrMemberEpoch ?? -1,
      memberId: req.memberId ?? '',
      groupInstanceId: v >= 7 ? (req.groupInstanceId ?? null) : null,
      offsets,
    });
    let i = 0;
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: errors[i++]! })) })),
    };
  },
};
