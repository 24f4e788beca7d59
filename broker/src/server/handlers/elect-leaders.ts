// ElectLeaders (key 43): v0-2 (kafka-leader-election, the admin clients' electLeaders). This broker
// is the leader and the preferred replica of every partition, so each existing partition answers
// ELECTION_NOT_NEEDED, as Kafka's controller does when the preferred (type 0) or any (unclean, 1)
// leader is in place; unknown ones UNKNOWN_TOPIC_OR_PARTITION. Asking for every partition (null)
// lists each topic with no partition results: Kafka leaves out those not needing an election
// (ReplicationControlManager.electLeaders).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  ElectLeadersRequest,
  ElectLeadersResponse,
  ElectLeadersResponsePartitionResult,
} from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';

/** org.apache.kafka.common.ElectionType */
const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

export const electLeadersHandler: ApiHandler<ElectLeadersRequest, ElectLeadersResponse> = {
  apiKey: ApiKey.ElectLeaders,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const { broker } = ctx;
    const electionType = req.electionType ?? ElectionType.PREFERRED;
    // KafkaApis.handleElectLeaders: ALTER on the cluster, else the error at the top and on every
    // partition named.
    if (!mayOnCluster(ctx, 'ALTER')) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({
          topic: t.topic,
          partitionResult: t.partitions.map((partitionId) => ({
            partitionId,
            errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
            errorMessage: null,
          })),
        })),
      };
    }
    if (req.topicPartitions === null) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        replicaElectionResults: (await broker.storage.listTopics()).map((t) => ({
          topic: t.name,
          partitionResult: [],
        })),
      };
    }
    // Kafka's ElectLeadersRequest.getErrorResponse for an unknown election type: the error everywhere.
    const badType = electionType !== ElectionType.PREFERRED && electionType !== ElectionType.UNCLEAN;
    const topics = await Promise.all(req.topicPartitions.map((t) => broker.storage.topic(t.topic)));
    const replicaElectionResults = req.topicPartitions.map((t, i) => {
      const topic = topics[i];
      return {
        topic: t.topic,
        partitionResult: t.partitions.map((partitionId): ElectLeadersResponsePartitionResult => {
          if (badType)
            return {
              partitionId,
              errorCode: ErrorCode.INVALID_REQUEST,
              errorMessage: `Unknown election type ${electionType}`,
            };
          if (!topic)
            return {
              partitionId,
              errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              errorMessage: `No such topic as ${t.topic}`,
            };
          if (partitionId < 0 || partitionId >= topic.partitionCount) {
            return {
              partitionId,
              errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              errorMessage: `No such partition as ${t.topic}-${partitionId}`,
            };
          }
          return {
            partitionId,
            errorCode: ErrorCode.ELECTION_NOT_NEEDED,
            errorMessage: 'Leader election not needed for topic partition.',
          };
        }),
      };
    });
    return {
      throttleTimeMs: 0,
      errorCode: badType ? ErrorCode.INVALID_REQUEST : ErrorCode.NONE,
      replicaElectionResults,
    };
  },
};
