// JoinGroup (key 11): v0-9. v1 adds rebalanceTimeoutMs (v0 uses the session timeout), v4 requires a
// member id (MEMBER_ID_REQUIRED round trip, KIP-394), v5 groupInstanceId (static membership,
// KIP-345), v7 protocolType in the response, v8 reason, v9 skipAssignment (always false here).
// The response is held until the rebalance's join phase completes.
import { ApiKey } from '../../../protocol/api-keys';
import type { JoinGroupRequest, JoinGroupResponse } from '../../../protocol/messages';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ApiHandler } from '../../context';
import { may } from '../authz';
import { clientHostOf } from './client-host';
import { coordinatorGate } from '../../cluster-answers';
import { joinError } from '../../../groups/group';

export const joinGroupHandler: ApiHandler<JoinGroupRequest, JoinGroupResponse> = {
  apiKey: ApiKey.JoinGroup,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    // KafkaApis.handleJoinGroupRequest: READ on the group.
    if (!may(ctx, 'READ', 'GROUP', req.groupId)) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
        generationId: -1,
        protocolType: null,
        protocolName: v >= 7 ? null : '',
        leader: '',
        skipAssignment: false,
        memberId: '',
        members: [],
      };
    }
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    const r =
      notHere !== ErrorCode.NONE
        ? joinError(notHere, req.memberId)
        : await ctx.broker.groups.joinGroup({
            groupId: req.groupId,
            memberId: req.memberId,
            groupInstanceId: v >= 5 ? (req.groupInstanceId ?? null) : null,
            requireKnownMemberId: v >= 4,
            clientId: ctx.clientId ?? '',
            clientHost: clientHostOf(ctx),
            sessionTimeoutMs: req.sessionTimeoutMs,
            rebalanceTimeoutMs: v >= 1 ? (req.rebalanceTimeoutMs ?? req.sessionTimeoutMs) : req.sessionTimeoutMs,
            protocolType: req.protocolType,
            protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
            reason: v >= 8 ? (req.reason ?? null) : null,
          });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolType: r.protocolType,
      // Nullable only from v7 (an error answer carries null there, "" before).
      protocolName: v >= 7 ? r.protocolName : (r.protocolName ?? ''),
      leader: r.leader,
      skipAssignment: r.skipAssignment,
      memberId: r.memberId,
      members: r.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        metadata: m.metadata,
      })),
    };
  },
};
