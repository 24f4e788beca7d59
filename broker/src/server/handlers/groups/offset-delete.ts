// OffsetDelete (key 47): v0 (KIP-496). Deletes committed offsets of an Empty group, or of topics a
// consumer group with members is not subscribed to (GROUP_SUBSCRIBED_TO_TOPIC otherwise).
import { ApiKey } from '../../../protocol/api-keys';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from '../../../protocol/messages';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ApiHandler } from '../../context';
import { authorizedNames, may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';

export const offsetDeleteHandler: ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: ApiKey.OffsetDelete,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    // KafkaApis.handleOffsetDeleteRequest: DELETE on the group, READ on each topic.
    if (!may(ctx, 'DELETE', 'GROUP', req.groupId))
      return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, throttleTimeMs: 0, topics: [] };
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    if (notHere !== ErrorCode.NONE) return { errorCode: notHere, throttleTimeMs: 0, topics: [] };
    const readable = authorizedNames(
      ctx,
      'READ',
      'TOPIC',
      req.topics.map((t) => t.name),
    );
    const r = await ctx.broker.groups.deleteOffsets(
      req.groupId,
      req.topics
        .filter((t) => readable.has(t.name))
        .map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    const refused = req.topics
      .filter((t) => !readable.has(t.name))
      .map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        })),
      }));
    return {
      errorCode: r.errorCode,
      throttleTimeMs: 0,
      topics: [
        ...r.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode })),
        })),
        ...refused,
      ],
    };
  },
};
