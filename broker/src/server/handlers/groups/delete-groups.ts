// DeleteGroups (key 42): v0-2 (v2 is flexible). KIP-896 meant to drop v0, but Kafka 4.1 still
// advertises and serves it (seen with npm run compat), so minnow does too. Only groups without
// members (else NON_EMPTY_GROUP); their committed offsets are deleted too.
import { ApiKey } from '../../../protocol/api-keys';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';

export const deleteGroupsHandler: ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: ApiKey.DeleteGroups,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    return { throttleTimeMs: 0, results: ctx.broker.groups.deleteGroups(req.groupsNames) };
  },
};
