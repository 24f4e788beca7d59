// DescribeCluster (key 60): v0-1. The Java admin uses it for describeCluster(); v1 adds the
// endpoint type (1 = brokers).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DescribeClusterRequest, DescribeClusterResponse } from '../../protocol/messages';
import { type ApiHandler } from '../context';
import { controllerId, liveBrokers } from '../cluster-answers';
import { clusterAuthorizedOperations, mayOnCluster } from './authz';

const BROKERS_ENDPOINT_TYPE = 1;

export const describeClusterHandler: ApiHandler<DescribeClusterRequest, DescribeClusterResponse> = {
  apiKey: ApiKey.DescribeCluster,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const { broker } = ctx;
    const { clusterId } = broker.identity;
    if ((req.endpointType ?? BROKERS_ENDPOINT_TYPE) !== BROKERS_ENDPOINT_TYPE) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'only broker endpoints (type 1) are served',
        clusterId,
        controllerId: -1,
        brokers: [],
        endpointType: req.endpointType,
      };
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: BROKERS_ENDPOINT_TYPE,
      clusterId,
      controllerId: controllerId(broker),
      brokers: liveBrokers(ctx).map(({ nodeId, host, port, rack }) => ({ brokerId: nodeId, host, port, rack })),
      // KIP-430: the operations allowed on the cluster when asked for (0 without DESCRIBE), as
      // AuthHelper.computeDescribeClusterResponse; DescribeCluster itself needs no ACL.
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations
        ? mayOnCluster(ctx, 'DESCRIBE')
          ? clusterAuthorizedOperations(ctx)
          : 0
        : -2147483648,
    };
  },
};
