// ListPartitionReassignments (key 46): v0 (kafka-reassign-partitions --verify/--list, the admin
// clients' listPartitionReassignments). One broker holds the only replica of every partition, so
// nothing is ever being reassigned: Kafka's controller lists only reassigning partitions and skips
// unknown topics (ReplicationControlManager.listPartitionReassignments), so the answer is empty.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';

export const listPartitionReassignmentsHandler: ApiHandler<
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse
> = {
  apiKey: ApiKey.ListPartitionReassignments,
  minVersion: 0,
  maxVersion: 0,
  // KafkaApis: DESCRIBE on the cluster.
  handle: (ctx) =>
    mayOnCluster(ctx, 'DESCRIBE')
      ? { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] }
      : {
          throttleTimeMs: 0,
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: 'Cluster authorization failed: listing reassignments needs DESCRIBE on the cluster.',
          topics: [],
        },
};
