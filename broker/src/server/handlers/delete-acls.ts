// DeleteAcls (key 31): v1-3 (v0 is gone since Kafka 4.0, KIP-896). Needs ALTER on the cluster
// (AclApis.handleDeleteAcls). Every filter is matched against the ACLs as they were before the
// request (as Kafka's AclControlManager.deleteAcls does), so a binding two filters match is listed
// under both; the union is deleted in one transaction.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import { bindingKey, filterMatches } from '../../protocol/acl';
import type { AclBinding } from '../../protocol/acl';
import type { DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { bindingCodes, filterFromRequest } from './acl-requests';
import { mayOnCluster } from './authz';

export const deleteAclsHandler: ApiHandler<DeleteAclsRequest, DeleteAclsResponse> = {
  apiKey: ApiKey.DeleteAcls,
  minVersion: 1,
  maxVersion: 3,
  handle: async (ctx, req) => {
    if (!mayOnCluster(ctx, 'ALTER')) {
      return {
        throttleTimeMs: 0,
        filterResults: req.filters.map(() => ({
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: 'Cluster authorization failed: deleting ACLs needs ALTER on the cluster.',
          matchingAcls: [],
        })),
      };
    }
    const before = ctx.broker.authorizer.acls();
    const doomed = new Map<string, AclBinding>();
    const filterResults = req.filters.map((f) => {
      const { filter, error } = filterFromRequest(f);
      if (!filter) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: error!, matchingAcls: [] };
      const matching = before.filter((b) => filterMatches(filter, b));
      for (const b of matching) doomed.set(bindingKey(b), b);
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        matchingAcls: matching.map((b) => ({ errorCode: ErrorCode.NONE, errorMessage: null, ...bindingCodes(b) })),
      };
    });
    if (doomed.size > 0) {
      await ctx.broker.storage.deleteAcls([...doomed.values()]);
      await ctx.broker.authorizer.reload();
      ctx.broker.logger.info('ACLs deleted', { principal: ctx.session.principal, count: doomed.size });
    }
    return { throttleTimeMs: 0, filterResults };
  },
};
