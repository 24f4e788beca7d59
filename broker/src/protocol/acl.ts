// Kafka's ACL model: the wire codes of its enums (org.apache.kafka.common.acl / .resource), an
// ACL binding (resource pattern + access control entry) and a binding filter with Kafka's matching
// rules (ResourcePatternFilter.matches, AccessControlEntryFilter.matches). Storage keeps bindings,
// the authorizer (server/authorizer.ts) decides with them, the ACL handlers filter them.

/** ResourceType codes. */
export const RESOURCE_TYPES = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const;
/** PatternType codes. MATCH and ANY exist only in filters. */
export const PATTERN_TYPES = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
/** AclOperation codes. ANY exists only in filters. */
export const OPERATIONS = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;
/** AclPermissionType codes. */
export const PERMISSION_TYPES = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

export type ResourceTypeName = keyof typeof RESOURCE_TYPES;
export type PatternTypeName = keyof typeof PATTERN_TYPES;
export type AclOperationName = keyof typeof OPERATIONS;
export type PermissionTypeName = keyof typeof PERMISSION_TYPES;

/** The resource name of the one CLUSTER resource (Kafka's CLUSTER_NAME). */
export const CLUSTER_RESOURCE_NAME = 'kafka-cluster';
/** A LITERAL resource name matching every resource of its type, and an ACL host matching every host. */
export const WILDCARD = '*';
/** An ACL principal matching every principal. */
export const WILDCARD_PRINCIPAL = 'User:*';

/**
 * Kafka's AclBindingFilter.ANY as DescribeAcls and DeleteAcls carry it (their filter fields): every
 * resource of every pattern, principal, host, operation and permission.
 */
export const ANY_ACL_FILTER = {
  resourceTypeFilter: RESOURCE_TYPES.ANY,
  resourceNameFilter: null,
  patternTypeFilter: PATTERN_TYPES.ANY,
  principalFilter: null,
  hostFilter: null,
  operation: OPERATIONS.ANY,
  permissionType: PERMISSION_TYPES.ANY,
} as const;

/** One stored ACL, Kafka's AclBinding: who may (or may not) do what to which resources from where. */
export interface AclBinding {
  resourceType: ResourceTypeName;
  resourceName: string;
  /** LITERAL or PREFIXED. */
  patternType: PatternTypeName;
  /** `User:alice`, `User:*`. */
  principal: string;
  /** An IP address or `*`. */
  host: string;
  operation: AclOperationName;
  permissionType: PermissionTypeName;
}

/** Kafka's AclBindingFilter: null fields and ANY match everything; MATCH resolves patterns. */
export interface AclBindingFilter {
  resourceType: ResourceTypeName;
  resourceName: string | null;
  patternType: PatternTypeName;
  principal: string | null;
  host: string | null;
  operation: AclOperationName;
  permissionType: PermissionTypeName;
}

function nameOf<T extends Record<string, number>>(codes: T, code: number): keyof T & string {
  for (const [name, c] of Object.entries(codes)) if (c === code) return name as keyof T & string;
  return 'UNKNOWN';
}
export const resourceTypeName = (code: number): ResourceTypeName => nameOf(RESOURCE_TYPES, code);
export const patternTypeName = (code: number): PatternTypeName => nameOf(PATTERN_TYPES, code);
export const operationName = (code: number): AclOperationName => nameOf(OPERATIONS, code);
export const permissionTypeName = (code: number): PermissionTypeName => nameOf(PERMISSION_TYPES, code);

/** ResourcePatternFilter.matches + AccessControlEntryFilter.matches. */
export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.resourceType !== 'ANY' && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== 'ANY' && f.patternType !== 'MATCH' && f.patternType !== b.patternType) return false;
  if (f.resourceName !== null) {
    if (f.patternType === 'MATCH') {
      // The filter names a resource: every pattern that covers it matches.
      if (b.patternType === 'LITERAL' && f.resourceName !== b.resourceName && b.resourceName !== WILDCARD) return false;
      if (b.patternType === 'PREFIXED' && !f.resourceName.startsWith(b.resourceName)) return false;
    } else if (f.resourceName !== b.resourceName) return false;
  }
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== 'ANY' && f.operation !== b.operation) return false;
  return f.permissionType === 'ANY' || f.permissionType === b.permissionType;
}

/** `User:alice` -> ['User', 'alice']; undefined unless it is TYPE:NAME with both parts non-empty. */
export function parsePrincipal(text: string): [string, string] | undefined {
  const i = text.indexOf(':');
  if (i <= 0 || i === text.length - 1) return undefined;
  return [text.slice(0, i), text.slice(i + 1)];
}

/** Kafka's `(principal=User:a, host=*, operation=READ, permissionType=ALLOW)` style, for messages and the CLI. */
export function describeBinding(b: AclBinding): string {
  return `${b.principal} has ${b.permissionType} permission for operation ${b.operation} from host ${b.host} on ${b.resourceType}:${b.patternType}:${b.resourceName}`;
}

/** A key identifying a binding (its seven fields), for sets and de-duplication. */
export function bindingKey(b: AclBinding): string {
  return [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permissionType].join(
    '\u0000',
  );
}
