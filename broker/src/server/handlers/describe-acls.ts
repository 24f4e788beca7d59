// DescribeAcls (key 29): v1-3 (v0 is gone since Kafka 4.0, KIP-896). minnow has no authorizer yet,
// so it answers as Kafka does without one (AclApis.handleDescribeAcls): SECURITY_DISABLED with
// "No Authorizer is configured on the broker" and no resources. kafka-acls --list and the admin
// clients show that error instead of a dropped connection.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DescribeAclsRequest, DescribeAclsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

export const describeAclsHandler: ApiHandler<DescribeAclsRequest, DescribeAclsResponse> = {
  apiKey: ApiKey.DescribeAcls,
  minVersion: 1,
  maxVersion: 3,
  handle: () => ({
    throttleTimeMs: 0,
    errorCode: ErrorCode.SECURITY_DISABLED,
    errorMessage: 'No Authorizer is configured on the broker',
    resources: [],
  }),
};
