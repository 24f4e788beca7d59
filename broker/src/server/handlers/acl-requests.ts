// The ACL APIs' request entries as bindings and filters (protocol/acl.ts), with the checks Kafka
// makes: CreateAclsRequest.validate / AclApis.handleCreateAcls / AclControlManager.validateNewAcl
// for a creation, DeleteAclsRequest / DescribeAclsRequest for a filter. Each answers
// INVALID_REQUEST with Kafka's message, or undefined when the entry is valid.
import { isIP } from 'node:net';
import {
  CLUSTER_RESOURCE_NAME,
  OPERATIONS,
  operationName,
  parsePrincipal,
  PATTERN_TYPES,
  patternTypeName,
  PERMISSION_TYPES,
  permissionTypeName,
  RESOURCE_TYPES,
  resourceTypeName,
  WILDCARD,
} from '../../protocol/acl';
import type { AclBinding, AclBindingFilter } from '../../protocol/acl';

/** The fields a CreateAcls creation and a stored binding share, as codes. */
export interface AclCreationCodes {
  resourceType: number;
  resourceName: string;
  resourcePatternType?: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface AclFilterCodes {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  patternTypeFilter?: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
}

export function bindingFromCreation(c: AclCreationCodes): { binding?: AclBinding; error?: string } {
  const binding: AclBinding = {
    resourceType: resourceTypeName(c.resourceType),
    resourceName: c.resourceName,
    patternType: patternTypeName(c.resourcePatternType ?? PATTERN_TYPES.LITERAL),
    principal: c.principal,
    host: c.host,
    operation: operationName(c.operation),
    permissionType: permissionTypeName(c.permissionType),
  };
  const b = binding;
  if (b.resourceType === 'UNKNOWN' || b.resourceType === 'ANY')
    return { error: `Invalid resourceType ${b.resourceType} (code ${c.resourceType})` };
  if (b.patternType !== 'LITERAL' && b.patternType !== 'PREFIXED')
    return { error: `Invalid patternType ${b.patternType} (code ${c.resourcePatternType}): use LITERAL or PREFIXED` };
  if (b.operation === 'UNKNOWN' || b.operation === 'ANY')
    return { error: `Invalid operation ${b.operation} (code ${c.operation})` };
  if (b.permissionType !== 'ALLOW' && b.permissionType !== 'DENY')
    return { error: `Invalid permissionType ${b.permissionType} (code ${c.permissionType}): use ALLOW or DENY` };
  if (b.resourceType === 'CLUSTER' && b.resourceName !== CLUSTER_RESOURCE_NAME)
    return { error: `The only valid name for the CLUSTER resource is ${CLUSTER_RESOURCE_NAME}` };
  if (b.resourceName === '') return { error: 'Invalid empty resource name' };
  // Kafka stores these unchecked and then never matches them; minnow says so at once.
  if (!parsePrincipal(b.principal))
    return { error: `Invalid principal "${b.principal}": expected TYPE:NAME, e.g. User:alice or User:*` };
  if (b.host !== WILDCARD && isIP(b.host) === 0)
    return { error: `Invalid host "${b.host}": expected * or an IP address (ACL hosts are addresses, not names)` };
  return { binding };
}

export function filterFromRequest(f: AclFilterCodes): { filter?: AclBindingFilter; error?: string } {
  const filter: AclBindingFilter = {
    resourceType: resourceTypeName(f.resourceTypeFilter),
    resourceName: f.resourceNameFilter,
    patternType: patternTypeName(f.patternTypeFilter ?? PATTERN_TYPES.LITERAL),
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: operationName(f.operation),
    permissionType: permissionTypeName(f.permissionType),
  };
  const unknown = [
    filter.resourceType === 'UNKNOWN' && `resource type ${f.resourceTypeFilter}`,
    filter.patternType === 'UNKNOWN' && `pattern type ${f.patternTypeFilter}`,
    filter.operation === 'UNKNOWN' && `operation ${f.operation}`,
    filter.permissionType === 'UNKNOWN' && `permission type ${f.permissionType}`,
  ].filter(Boolean);
  if (unknown.length > 0) return { error: `Filter contains UNKNOWN elements: ${unknown.join(', ')}` };
  return { filter };
}

/** A binding as the responses carry it: Kafka's codes. */
export function bindingCodes(b: AclBinding) {
  return {
    resourceType: RESOURCE_TYPES[b.resourceType],
    resourceName: b.resourceName,
    patternType: PATTERN_TYPES[b.patternType],
    principal: b.principal,
    host: b.host,
    operation: OPERATIONS[b.operation],
    permissionType: PERMISSION_TYPES[b.permissionType],
  };
}
