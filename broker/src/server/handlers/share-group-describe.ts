// ShareGroupDescribe (key 77, KIP-932): v1. Each group needs DESCRIBE (else
// GROUP_AUTHORIZATION_FAILED); an id that is not a share group answers GROUP_ID_NOT_FOUND as Kafka's
// GroupMetadataManager.shareGroupDescribe does.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { authorizedOperations, may } from './authz';
import { coordinatorGate } from '../cluster-answers';

/** "Not requested" in KIP-430. */
const OPERATIONS_NOT_REQUESTED = -2147483648;

type Described = ShareGroupDescribeResponse['groups'][number];

const empty = (groupId: string, errorCode: number, errorMessage: string | null): Described => ({
  errorCode,
  errorMessage,
  groupId,
  groupState: '',
  groupEpoch: 0,
  assignmentEpoch: 0,
  assignorName: '',
  members: [],
  authorizedOperations: OPERATIONS_NOT_REQUESTED,
});

export const shareGroupDescribeHandler: ApiHandler<ShareGroupDescribeRequest, ShareGroupDescribeResponse> = {
  apiKey: ApiKey.ShareGroupDescribe,
  minVersion: 1,
  maxVersion: 1,
  async handle(ctx, req) {
    const share = ctx.broker.shareGroups.coordinator;
    const groups: Described[] = [];
    for (const groupId of req.groupIds) {
      const notHere = may(ctx, 'DESCRIBE', 'GROUP', groupId)
        ? await coordinatorGate(ctx, 'group', groupId)
        : ErrorCode.GROUP_AUTHORIZATION_FAILED;
      if (notHere !== ErrorCode.NONE) {
        groups.push(empty(groupId, notHere, null));
        continue;
      }
      const group = share.group(groupId);
      if (!group) {
        groups.push(empty(groupId, ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`));
        continue;
      }
      const names = new Map<string, string>();
      for (const m of group.members.values()) {
        for (const id of m.assignment.keys()) {
          if (!names.has(id)) names.set(id, (await ctx.broker.storage.topicById(id))?.name ?? '');
        }
      }
      groups.push({
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        groupId,
        groupState: group.state,
        groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch,
        assignorName: 'simple',
        members: [...group.members.values()].map((m) => ({
          memberId: m.memberId,
          rackId: m.rackId,
          memberEpoch: m.memberEpoch,
          clientId: m.clientId,
          clientHost: m.clientHost,
          subscribedTopicNames: m.subscribedTopicNames,
          assignment: {
            topicPartitions: [...m.assignment.entries()].map(([topicId, partitions]) => ({
              topicId,
              topicName: names.get(topicId) ?? '',
              partitions,
            })),
          },
        })),
        authorizedOperations: req.includeAuthorizedOperations
          ? authorizedOperations(ctx, 'GROUP', groupId)
          : OPERATIONS_NOT_REQUESTED,
      });
    }
    return { throttleTimeMs: 0, groups };
  },
};
