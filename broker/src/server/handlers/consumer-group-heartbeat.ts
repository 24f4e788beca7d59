// ConsumerGroupHeartbeat (key 68, KIP-848's consumer group protocol): v0-1 (v1 adds
// SubscribedTopicRegex). The whole state machine is groups/consumer/consumer-coordinator.ts; this
// checks READ on the group (KafkaApis.handleConsumerGroupHeartbeat) and that this broker is the
// group's coordinator (src/cluster), and loads the group's stored state on first use.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { coordinatorGate } from '../cluster-answers';

const refusal = (errorCode: number, errorMessage: string | null = null): ConsumerGroupHeartbeatResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  memberId: null,
  memberEpoch: 0,
  heartbeatIntervalMs: 0,
  assignment: null,
});

export const consumerGroupHeartbeatHandler: ApiHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> =
  {
    apiKey: ApiKey.ConsumerGroupHeartbeat,
    minVersion: 0,
    maxVersion: 1,
    async handle(ctx, req) {
      if (!may(ctx, 'READ', 'GROUP', req.groupId)) return refusal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const notHere = await coordinatorGate(ctx, 'group', req.groupId);
      if (notHere !== ErrorCode.NONE) return refusal(notHere);
      const r = await ctx.broker.groups.consumer.heartbeat({
        groupId: req.groupId,
        memberId: req.memberId,
        memberEpoch: req.memberEpoch,
        instanceId: req.instanceId ?? null,
        rackId: req.rackId ?? null,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs ?? -1,
        subscribedTopicNames: req.subscribedTopicNames ?? null,
        subscribedTopicRegex: ctx.apiVersion >= 1 ? (req.subscribedTopicRegex ?? null) : null,
        serverAssignor: req.serverAssignor ?? null,
        topicPartitions: req.topicPartitions ?? null,
        clientId: ctx.clientId ?? '',
        clientHost: ctx.clientHost,
      });
      return { throttleTimeMs: 0, ...r };
    },
  };
