// SyncGroup (key 14): v0-5. v3 adds groupInstanceId, v5 protocolType/protocolName (checked against
// the group's). A follower's response is held until the leader sends the assignment.
import { ApiKey } from '../../../protocol/api-keys';
import type { SyncGroupRequest, SyncGroupResponse } from '../../../protocol/messages';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ApiHandler } from '../../context';
import { may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';
import { syncError } from '../../../groups/group';

export const syncGroupHandler: ApiHandler<SyncGroupRequest, SyncGroupResponse> = {
  apiKey: ApiKey.SyncGroup,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    // KafkaApis.handleSyncGroupRequest: READ on the group.
    if (!may(ctx, 'READ', 'GROUP', req.groupId)) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
        protocolType: null,
        protocolName: null,
        assignment: Buffer.alloc(0),
      };
    }
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    const r =
      notHere !== ErrorCode.NONE
        ? syncError(notHere)
        : await ctx.broker.groups.syncGroup({
            groupId: req.groupId,
            generationId: req.generationId,
            memberId: req.memberId,
            groupInstanceId: v >= 3 ? (req.groupInstanceId ?? null) : null,
            protocolType: v >= 5 ? (req.protocolType ?? null) : null,
            protocolName: v >= 5 ? (req.protocolName ?? null) : null,
            assignments: req.assignments,
          });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      protocolType: r.protocolType,
      protocolName: r.protocolName,
      assignment: r.assignment,
    };
  },
};
