// DescribeAcls (key 29): v1-3 (v0 is gone since Kafka 4.0, KIP-896). Needs DESCRIBE on the cluster
// (AclApis.handleDescribeAcls); answers the bindings the filter matches (Kafka's ANY / MATCH /
// LITERAL / PREFIXED semantics, protocol/acl.ts), grouped by resource pattern as Kafka's
// DescribeAclsResponse.aclsResources does.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import { filterMatches } from '../../protocol/acl';
import type {
  DescribeAclsRequest,
  DescribeAclsResponse,
  DescribeAclsResponseDescribeAclsResource,
} from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { bindingCodes, filterFromRequest } from './acl-requests';
import { mayOnCluster } from './authz';

export const describeAclsHandler: ApiHandler<DescribeAclsRequest, DescribeAclsResponse> = {
  apiKey: ApiKey.DescribeAcls,
  minVersion: 1,
  maxVersion: 3,
  handle: (ctx, req) => {
    const error = (errorCode: number, errorMessage: string): DescribeAclsResponse => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage,
      resources: [],
    });
    if (!mayOnCluster(ctx, 'DESCRIBE'))
      return error(
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        'Cluster authorization failed: describing ACLs needs DESCRIBE on the cluster.',
      );
    const { filter, error: invalid } = filterFromRequest(req);
    if (!filter) return error(ErrorCode.INVALID_REQUEST, invalid!);
    const resources = new Map<string, DescribeAclsResponseDescribeAclsResource>();
    for (const b of ctx.broker.authorizer.acls()) {
      if (!filterMatches(filter, b)) continue;
      const codes = bindingCodes(b);
      const key = `${b.resourceType}\u0000${b.patternType}\u0000${b.resourceName}`;
      let resource = resources.get(key);
      if (!resource) {
        resource = {
          resourceType: codes.resourceType,
          resourceName: codes.resourceName,
          patternType: codes.patternType,
          acls: [],
        };
        resources.set(key, resource);
      }
      resource.acls.push({
        principal: codes.principal,
        host: codes.host,
        operation: codes.operation,
        permissionType: codes.permissionType,
      });
    }
    // Kafka leaves ErrorMessage at its generated default, "" (not null), on success.
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', resources: [...resources.values()] };
  },
};
