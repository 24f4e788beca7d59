// Heartbeat (key 12): v0-4. v3 adds groupInstanceId (static members are fenced with
// FENCED_INSTANCE_ID), v4 is flexible. REBALANCE_IN_PROGRESS tells a member to rejoin.
import { ApiKey } from '../../../protocol/api-keys';
import type { HeartbeatRequest, HeartbeatResponse } from '../../../protocol/messages';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ApiHandler } from '../../context';
import { may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';

export const heartbeatHandler: ApiHandler<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: ApiKey.Heartbeat,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    // KafkaApis: READ on the group.
    if (!may(ctx, 'READ', 'GROUP', req.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    if (notHere !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: notHere };
    const errorCode = ctx.broker.groups.heartbeat({
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: ctx.apiVersion >= 3 ? (req.groupInstanceId ?? null) : null,
    });
    return { throttleTimeMs: 0, errorCode };
  },
};
