// DescribeGroups (key 15): v0-5. v3 adds authorized operations (no ACLs here: READ, DELETE and
// DESCRIBE are allowed), v4 groupInstanceId, v5 is flexible. An unknown group is described as Dead
// with no error, as Kafka does up to v5; member metadata and assignments only while Stable.
import { ApiKey } from '../../../protocol/api-keys';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from '../../../protocol/messages';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ApiHandler } from '../../context';
import { authorizedOperations, may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';

/** "Not requested" in KIP-430. */
const OPERATIONS_NOT_REQUESTED = -2147483648;

export const describeGroupsHandler: ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> = {
  apiKey: ApiKey.DescribeGroups,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    // KafkaApis.handleDescribeGroupsRequest: DESCRIBE on each group (DescribeGroupsResponse.groupError
    // otherwise); KIP-430's operations, when asked for, are those the principal has on it.
    return {
      throttleTimeMs: 0,
      groups: await Promise.all(
        req.groups.map(async (groupId) => {
          // Membership lives on the group's coordinator (src/cluster): elsewhere, NOT_COORDINATOR.
          const notHere = may(ctx, 'DESCRIBE', 'GROUP', groupId)
            ? await coordinatorGate(ctx, 'group', groupId)
            : ErrorCode.GROUP_AUTHORIZATION_FAILED;
          return notHere === ErrorCode.NONE
            ? {
                ...(await ctx.broker.groups.describeGroup(groupId)),
                authorizedOperations: req.includeAuthorizedOperations
                  ? authorizedOperations(ctx, 'GROUP', groupId)
                  : OPERATIONS_NOT_REQUESTED,
              }
            : {
                errorCode: notHere,
                groupId,
                groupState: '',
                protocolType: '',
                protocolData: '',
                members: [],
                authorizedOperations: OPERATIONS_NOT_REQUESTED,
              };
        }),
      ),
    };
  },
};
