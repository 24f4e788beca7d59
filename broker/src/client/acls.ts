// The ACL APIs (CreateAcls, DescribeAcls, DeleteAcls v1-3) for the CLI's `minnow acl`, on
// KafkaClient's bootstrap connection: bindings and filters as protocol/acl.ts names them.
import {
  OPERATIONS,
  operationName,
  PATTERN_TYPES,
  patternTypeName,
  PERMISSION_TYPES,
  permissionTypeName,
  RESOURCE_TYPES,
  resourceTypeName,
} from '../protocol/acl';
import type { AclBinding, AclBindingFilter } from '../protocol/acl';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { CreateAclsResponse, DeleteAclsResponse, DescribeAclsResponse } from '../protocol/messages';
import type { KafkaClient } from './client';
import { KafkaClientError } from './connection';

const filterCodes = (f: AclBindingFilter) => ({
  resourceTypeFilter: RESOURCE_TYPES[f.resourceType],
  resourceNameFilter: f.resourceName,
  patternTypeFilter: PATTERN_TYPES[f.patternType],
  principalFilter: f.principal,
  hostFilter: f.host,
  operation: OPERATIONS[f.operation],
  permissionType: PERMISSION_TYPES[f.permissionType],
});

const bindingOf = (r: {
  resourceType: number;
  resourceName: string;
  patternType?: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}): AclBinding => ({
  resourceType: resourceTypeName(r.resourceType),
  resourceName: r.resourceName,
  patternType: patternTypeName(r.patternType ?? PATTERN_TYPES.LITERAL),
  principal: r.principal,
  host: r.host,
  operation: operationName(r.operation),
  permissionType: permissionTypeName(r.permissionType),
});

const failure = (what: string, code: number, message: string | null) =>
  new KafkaClientError(`${what}: ${errorName(code)}${message ? `: ${message}` : ''}`, code);

export async function createAcls(client: KafkaClient, bindings: readonly AclBinding[]): Promise<void> {
  const conn = await client.connect();
  const res: CreateAclsResponse = await conn.send(ApiKey.CreateAcls, conn.version(ApiKey.CreateAcls, 1, 3), {
    creations: bindings.map((b) => ({
      resourceType: RESOURCE_TYPES[b.resourceType],
      resourceName: b.resourceName,
      resourcePatternType: PATTERN_TYPES[b.patternType],
      principal: b.principal,
      host: b.host,
      operation: OPERATIONS[b.operation],
      permissionType: PERMISSION_TYPES[b.permissionType],
    })),
  });
  const failed = res.results.findIndex((r) => r.errorCode !== ErrorCode.NONE);
  if (failed >= 0) {
    const r = res.results[failed]!;
    throw failure(`create ACL ${JSON.stringify(bindings[failed])}`, r.errorCode, r.errorMessage);
  }
}

export async function describeAcls(client: KafkaClient, filter: AclBindingFilter): Promise<AclBinding[]> {
  const conn = await client.connect();
  const res: DescribeAclsResponse = await conn.send(
    ApiKey.DescribeAcls,
    conn.version(ApiKey.DescribeAcls, 1, 3),
    filterCodes(filter),
  );
  if (res.errorCode !== ErrorCode.NONE) throw failure('describe ACLs', res.errorCode, res.errorMessage);
  return res.resources.flatMap((r) =>
    r.acls.map((a) =>
      bindingOf({ ...a, resourceType: r.resourceType, resourceName: r.resourceName, patternType: r.patternType }),
    ),
  );
}

/** Deletes what each filter matches; returns the deleted bindings. */
export async function deleteAcls(client: KafkaClient, filters: readonly AclBindingFilter[]): Promise<AclBinding[]> {
  const conn = await client.connect();
  const res: DeleteAclsResponse = await conn.send(ApiKey.DeleteAcls, conn.version(ApiKey.DeleteAcls, 1, 3), {
    filters: filters.map(filterCodes),
  });
  const out: AclBinding[] = [];
  for (const r of res.filterResults) {
    if (r.errorCode !== ErrorCode.NONE) throw failure('delete ACLs', r.errorCode, r.errorMessage);
    out.push(...r.matchingAcls.map(bindingOf));
  }
  return out;
}
