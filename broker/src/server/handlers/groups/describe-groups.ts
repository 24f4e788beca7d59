// DescribeGroups (key 15): v0-5. v3 adds authorized operations (no ACLs here: READ, DELETE and
// DESCRIBE are allowed), v4 groupInstanceId, v5 is flexible. An unknown group is described as Dead
// with no error, as Kafka does up to v5; member metadata and assignments only while Stable.
import { ApiKey } from '../../../protocol/api-keys';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';

/** AclOperation codes READ(3), DELETE(6), DESCRIBE(8) as a bit set (KIP-430). */
export const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
/** "Not requested" in KIP-430. */
const OPERATIONS_NOT_REQUESTED = -2147483648;

export const describeGroupsHandler: ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> = {
  apiKey: ApiKey.DescribeGroups,
  minVersion: 0,
  maxVersion: 5,
  handle(ctx, req) {
    const authorizedOperations = req.includeAuthorizedOperations
      ? GROUP_AUTHORIZED_OPERATIONS
      : OPERATIONS_NOT_REQUESTED;
    return {
      throttleTimeMs: 0,
      groups: req.groups.map((groupId) => ({ ...ctx.broker.groups.describeGroup(groupId), authorizedOperations })),
    };
  },
};
