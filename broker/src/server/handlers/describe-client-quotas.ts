// DescribeClientQuotas (key 48, KIP-546): the stored quotas of the entities the filter matches, as
// Kafka's ClientQuotasImage.describe answers. A bad filter is an error code for the whole request
// with no entries (null, as Kafka sends). `kafka-configs --describe --entity-type users|clients|ips`.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';
import { matchesFilter, parseFilter } from '../quotas/describe-filter';
import { entityData } from '../quotas/quota-entities';

export const describeClientQuotasHandler: ApiHandler<DescribeClientQuotasRequest, DescribeClientQuotasResponse> = {
  apiKey: ApiKey.DescribeClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const { broker } = ctx;
    // KafkaApis.handleDescribeClientQuotasRequest: DESCRIBE_CONFIGS on the cluster.
    if (!mayOnCluster(ctx, 'DESCRIBE_CONFIGS'))
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: 'Cluster authorization failed: describing client quotas needs DESCRIBE_CONFIGS on the cluster.',
        entries: null,
      };
    const filter = parseFilter(req.components, req.strict);
    if ('errorCode' in filter) return { throttleTimeMs: 0, ...filter, entries: null };
    const entries = (await broker.storage.clientQuotas())
      .filter((q) => matchesFilter(q.entity, filter))
      .map((q) => ({
        entity: entityData(q.entity),
        values: Object.entries(q.values).map(([key, value]) => ({ key, value })),
      }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries };
  },
};
