// DeleteShareGroupOffsets (key 92, KIP-932): v0. Deletes the share-partition state of whole topics
// of an EMPTY share group (GroupCoordinatorShard.initiateDeleteShareGroupOffsets: GROUP_ID_NOT_FOUND
// for an id that is no share group, NON_EMPTY_GROUP while it has members; a topic the group has no
// state for answers UNKNOWN_TOPIC_OR_PARTITION). DELETE on the group (else
// GROUP_AUTHORIZATION_FAILED), READ on each topic (else TOPIC_AUTHORIZATION_FAILED).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse } from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { ApiHandler } from '../context';
import { authorizedNames } from './authz';
import { shareGroupAdminRefusal } from './share-group-gates';

const refusal = (errorCode: number, errorMessage: string | null): DeleteShareGroupOffsetsResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  responses: [],
});

export const deleteShareGroupOffsetsHandler: ApiHandler<
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse
> = {
  apiKey: ApiKey.DeleteShareGroupOffsets,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const refused = await shareGroupAdminRefusal(ctx, 'DELETE', req.groupId);
    if (refused) return refusal(refused.errorCode, refused.errorMessage);
    const offsets = ctx.broker.shareGroups.offsets;
    const names = req.topics.map((t) => t.topicName);
    const readable = authorizedNames(ctx, 'READ', 'TOPIC', names);
    const deleted = await offsets.deleteOffsets(
      req.groupId,
      names.filter((n) => readable.has(n)),
    );
    const unauthorized = names
      .filter((n) => !readable.has(n))
      .map((topicName) => ({
        topicName,
        topicId: ZERO_UUID,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        errorMessage: 'Topic authorization failed.',
      }));
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      responses: [...deleted, ...unauthorized],
    };
  },
};
