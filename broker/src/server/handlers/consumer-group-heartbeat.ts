// ConsumerGroupHeartbeat (key 68, KIP-848's consumer group protocol): advertised v0-1 and answered
// UNSUPPORTED_VERSION, as Kafka 4.x does while the protocol is disabled
// (group.coordinator.rebalance.protocols without "consumer"; KafkaApis.handleConsumerGroupHeartbeat).
// Left out of ApiVersions, librdkafka (seen with 2.16) with group.protocol=consumer only marks the
// coordinator dead at debug level and retries forever; with this answer it raises a fatal error,
// and the Java client says to set group.protocol=classic.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

export const CONSUMER_PROTOCOL_UNSUPPORTED =
  'minnow implements only the classic consumer group protocol, not KIP-848\'s "consumer" protocol: set group.protocol=classic on the consumer';

export const consumerGroupHeartbeatHandler: ApiHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> =
  {
    apiKey: ApiKey.ConsumerGroupHeartbeat,
    minVersion: 0,
    maxVersion: 1,
    handle() {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        errorMessage: CONSUMER_PROTOCOL_UNSUPPORTED,
        memberId: null,
        memberEpoch: 0,
        heartbeatIntervalMs: 0,
        assignment: null,
      };
    },
  };
