// Shorthands for the handlers' authorization checks (Kafka's AuthHelper: authorize,
// filterByAuthorized, authorizeClusterOperation). Decisions come from server/authorizer.ts.
import { CLUSTER_RESOURCE_NAME, OPERATIONS } from '../../protocol/acl';
import type { AclOperationName } from '../../protocol/acl';
import type { AuthorizableResourceType } from '../authorizer';
import type { RequestContext } from '../context';

export function may(
  ctx: RequestContext,
  operation: AclOperationName,
  resourceType: AuthorizableResourceType,
  name: string,
): boolean {
  return ctx.broker.authorizer.authorize(ctx.session, operation, resourceType, name);
}

export function mayOnCluster(ctx: RequestContext, operation: AclOperationName): boolean {
  return ctx.broker.authorizer.authorizeCluster(ctx.session, operation);
}

/** The names the principal may do `operation` on, each decided once. */
export function authorizedNames(
  ctx: RequestContext,
  operation: AclOperationName,
  resourceType: AuthorizableResourceType,
  names: Iterable<string>,
): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (may(ctx, operation, resourceType, name)) out.add(name);
  }
  return out;
}

/**
 * The operations Kafka reports per resource type (AclEntry.supportedOperations); a group's config
 * operations (Kafka 4, KIP-848 group configs) are left out: minnow has no group configs.
 */
const SUPPORTED_OPERATIONS: Record<AuthorizableResourceType, readonly AclOperationName[]> = {
  TOPIC: ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
  GROUP: ['READ', 'DESCRIBE', 'DELETE'],
  CLUSTER: ['CREATE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'ALTER', 'DESCRIBE'],
  TRANSACTIONAL_ID: ['DESCRIBE', 'WRITE'],
};

/**
 * The `...AuthorizedOperations` fields (KIP-430): a bit per allowed operation code (Kafka's
 * AuthHelper.authorizedOperations, Utils.to32BitField).
 */
export function authorizedOperations(
  ctx: RequestContext,
  resourceType: AuthorizableResourceType,
  name: string,
): number {
  let bits = 0;
  for (const op of SUPPORTED_OPERATIONS[resourceType])
    if (may(ctx, op, resourceType, name)) bits |= 1 << OPERATIONS[op];
  return bits;
}

export const clusterAuthorizedOperations = (ctx: RequestContext) =>
  authorizedOperations(ctx, 'CLUSTER', CLUSTER_RESOURCE_NAME);
