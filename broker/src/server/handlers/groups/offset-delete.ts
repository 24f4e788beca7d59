// OffsetDelete (key 47): v0 (KIP-496). Deletes committed offsets of an Empty group, or of topics a
// consumer group with members is not subscribed to (GROUP_SUBSCRIBED_TO_TOPIC otherwise).
import { ApiKey } from '../../../protocol/api-keys';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';

export const offsetDeleteHandler: ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: ApiKey.OffsetDelete,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const r = ctx.broker.groups.deleteOffsets(
      req.groupId,
      req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    return {
      errorCode: r.errorCode,
      throttleTimeMs: 0,
      topics: r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode })),
      })),
    };
  },
};
