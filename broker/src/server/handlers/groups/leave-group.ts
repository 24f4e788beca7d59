// LeaveGroup (key 13): v0-5. v0-2 name one member (its error is the top-level error); v3+ a batch of
// members by id and/or groupInstanceId (KIP-345), with per-member errors; v5 adds a reason.
import { ApiKey } from '../../../protocol/api-keys';
import { ErrorCode } from '../../../protocol/error-codes';
import type { LeaveGroupRequest, LeaveGroupResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';
import { may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';

export const leaveGroupHandler: ApiHandler<LeaveGroupRequest, LeaveGroupResponse> = {
  apiKey: ApiKey.LeaveGroup,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    // KafkaApis.handleLeaveGroupRequest: READ on the group.
    if (!may(ctx, 'READ', 'GROUP', req.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    if (notHere !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: notHere, members: [] };
    const leaving =
      v >= 3
        ? (req.members ?? []).map((m) => ({
            memberId: m.memberId ?? '',
            groupInstanceId: m.groupInstanceId ?? null,
            reason: v >= 5 ? (m.reason ?? null) : null,
          }))
        : [{ memberId: req.memberId ?? '', groupInstanceId: null, reason: null }];
    const r = ctx.broker.groups.leaveGroup(req.groupId, leaving);
    if (v < 3) {
      const errorCode = r.errorCode !== ErrorCode.NONE ? r.errorCode : (r.members[0]?.errorCode ?? ErrorCode.NONE);
      return { throttleTimeMs: 0, errorCode };
    }
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      members: r.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        errorCode: m.errorCode,
      })),
    };
  },
};
