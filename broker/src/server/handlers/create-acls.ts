// CreateAcls (key 30): v1-3 (v0 is gone since Kafka 4.0, KIP-896). Needs ALTER on the cluster
// (AclApis.handleCreateAcls); each creation is checked (acl-requests.ts) and answered on its own,
// the valid ones stored together. Creating an existing binding again succeeds, as in Kafka.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { AclBinding } from '../../protocol/acl';
import type { CreateAclsRequest, CreateAclsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { bindingFromCreation } from './acl-requests';
import { mayOnCluster } from './authz';

export const createAclsHandler: ApiHandler<CreateAclsRequest, CreateAclsResponse> = {
  apiKey: ApiKey.CreateAcls,
  minVersion: 1,
  maxVersion: 3,
  handle: async (ctx, req) => {
    if (!mayOnCluster(ctx, 'ALTER')) {
      return {
        throttleTimeMs: 0,
        results: req.creations.map(() => ({
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: 'Cluster authorization failed: creating ACLs needs ALTER on the cluster.',
        })),
      };
    }
    const checked = req.creations.map(bindingFromCreation);
    const valid = checked.flatMap((c) => (c.binding ? [c.binding] : [])) satisfies AclBinding[];
    if (valid.length > 0) {
      await ctx.broker.storage.createAcls(valid);
      await ctx.broker.authorizer.reload();
      ctx.broker.logger.info('ACLs created', { principal: ctx.session.principal, count: valid.length });
    }
    return {
      throttleTimeMs: 0,
      // A success leaves the message at Kafka's generated default: "", not null.
      results: checked.map((c) =>
        c.error
          ? { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: c.error }
          : { errorCode: ErrorCode.NONE, errorMessage: '' },
      ),
    };
  },
};
