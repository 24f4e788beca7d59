// ShareGroupHeartbeat (key 76, KIP-932): v1 (v0 was Kafka 4.0's early access). The membership state
// machine is groups/share/share-coordinator.ts; this checks READ on the group (Kafka's
// KafkaApis.handleShareGroupHeartbeat) and that this broker coordinates it (src/cluster).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { coordinatorGate } from '../cluster-answers';

const refusal = (errorCode: number, errorMessage: string | null = null): ShareGroupHeartbeatResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  memberId: null,
  memberEpoch: 0,
  heartbeatIntervalMs: 0,
  assignment: null,
});

export const shareGroupHeartbeatHandler: ApiHandler<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse> = {
  apiKey: ApiKey.ShareGroupHeartbeat,
  minVersion: 1,
  maxVersion: 1,
  async handle(ctx, req) {
    if (!may(ctx, 'READ', 'GROUP', req.groupId)) return refusal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const notHere = await coordinatorGate(ctx, 'group', req.groupId);
    if (notHere !== ErrorCode.NONE) return refusal(notHere);
    // One group id space (Kafka's GroupMetadataManager): a classic or consumer group keeps its id.
    const groups = ctx.broker.groups;
    if (groups.group(req.groupId) !== undefined || groups.consumer.group(req.groupId) !== undefined) {
      return refusal(
        ErrorCode.GROUP_ID_NOT_FOUND,
        `Group ${req.groupId} is not a share group (it is a classic or consumer group); use another group.id.`,
      );
    }
    const r = await ctx.broker.shareGroups.coordinator.heartbeat({
      groupId: req.groupId,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      rackId: req.rackId ?? null,
      subscribedTopicNames: req.subscribedTopicNames ?? null,
      clientId: ctx.clientId ?? '',
      clientHost: ctx.clientHost,
    });
    return { throttleTimeMs: 0, ...r };
  },
};
