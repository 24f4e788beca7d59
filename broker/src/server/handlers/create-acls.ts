// CreateAcls (key 30): v1-3 (v0 is gone since Kafka 4.0, KIP-896). No authorizer yet: every
// creation gets SECURITY_DISABLED "No Authorizer is configured.", as from Kafka without one
// (AclApis.handleCreateAcls -> CreateAclsRequest.getErrorResponse), and nothing is stored.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { CreateAclsRequest, CreateAclsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

export const createAclsHandler: ApiHandler<CreateAclsRequest, CreateAclsResponse> = {
  apiKey: ApiKey.CreateAcls,
  minVersion: 1,
  maxVersion: 3,
  handle: (_ctx, req) => ({
    throttleTimeMs: 0,
    results: req.creations.map(() => ({
      errorCode: ErrorCode.SECURITY_DISABLED,
      errorMessage: 'No Authorizer is configured.',
    })),
  }),
};
