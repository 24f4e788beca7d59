// DeleteAcls (key 31): v1-3 (v0 is gone since Kafka 4.0, KIP-896). No authorizer yet: every filter
// gets SECURITY_DISABLED "No Authorizer is configured." and no matching ACLs, as from Kafka without
// one (AclApis.handleDeleteAcls -> DeleteAclsRequest.getErrorResponse).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

export const deleteAclsHandler: ApiHandler<DeleteAclsRequest, DeleteAclsResponse> = {
  apiKey: ApiKey.DeleteAcls,
  minVersion: 1,
  maxVersion: 3,
  handle: (_ctx, req) => ({
    throttleTimeMs: 0,
    filterResults: req.filters.map(() => ({
      errorCode: ErrorCode.SECURITY_DISABLED,
      errorMessage: 'No Authorizer is configured.',
      matchingAcls: [],
    })),
  }),
};
