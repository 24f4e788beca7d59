// DeleteGroups (key 42): v1-2 (v0 is gone since Kafka 4.0, KIP-896; v2 is flexible). Only groups
// without members (else NON_EMPTY_GROUP); their committed offsets are deleted too.
import { ApiKey } from '../../../protocol/api-keys';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';

export const deleteGroupsHandler: ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: ApiKey.DeleteGroups,
  minVersion: 1,
  maxVersion: 2,
  handle(ctx, req) {
    return { throttleTimeMs: 0, results: ctx.broker.groups.deleteGroups(req.groupsNames) };
  },
};
