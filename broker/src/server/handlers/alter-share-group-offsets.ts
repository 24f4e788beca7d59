// AlterShareGroupOffsets (key 91, KIP-932): v0. Sets the start offset of share-partitions of an
// EMPTY share group (GroupMetadataManager.alterShareGroupOffsets: GROUP_ID_NOT_FOUND for an id that
// is no share group, NON_EMPTY_GROUP while it has members, as a top-level error with no topics).
// READ on the group (else GROUP_AUTHORIZATION_FAILED) and on each topic (else
// TOPIC_AUTHORIZATION_FAILED on its partitions); an unknown topic or partition answers
// UNKNOWN_TOPIC_OR_PARTITION. The new state is stored before the answer.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { ApiHandler } from '../context';
import { authorizedNames } from './authz';
import { shareGroupAdminRefusal } from './share-group-gates';

const refusal = (errorCode: number, errorMessage: string | null): AlterShareGroupOffsetsResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  responses: [],
});

export const alterShareGroupOffsetsHandler: ApiHandler<AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse> =
  {
    apiKey: ApiKey.AlterShareGroupOffsets,
    minVersion: 0,
    maxVersion: 0,
    async handle(ctx, req) {
      const refused = await shareGroupAdminRefusal(ctx, 'READ', req.groupId);
      if (refused) return refusal(refused.errorCode, refused.errorMessage);
      const offsets = ctx.broker.shareGroups.offsets;
      const readable = authorizedNames(
        ctx,
        'READ',
        'TOPIC',
        req.topics.map((t) => t.topicName),
      );
      const altered = await offsets.alter(
        req.groupId,
        req.topics.filter((t) => readable.has(t.topicName)),
      );
      const unauthorized = req.topics
        .filter((t) => !readable.has(t.topicName))
        .map((t) => ({
          topicName: t.topicName,
          topicId: ZERO_UUID,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            errorMessage: 'Topic authorization failed.',
          })),
        }));
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        responses: [...altered, ...unauthorized],
      };
    },
  };
