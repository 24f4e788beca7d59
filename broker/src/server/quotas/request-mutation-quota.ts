// The request side of KIP-599's controller mutation quota, apart from the buckets
// (controller-mutation-quotas.ts) so that the quota layer does not import the request context
// (server/context.ts imports the quotas: a cycle).
import type { RequestContext } from '../context';
import { type ControllerMutationQuota, UNBOUNDED } from './controller-mutation-quotas';

/**
 * The quota a CreateTopics / CreatePartitions / DeleteTopics request charges: strict from
 * `strictSinceVersion` (the first version whose clients know THROTTLING_QUOTA_EXCEEDED).
 */
export function requestMutationQuota(ctx: RequestContext, strictSinceVersion: number): ControllerMutationQuota {
  const { quotas } = ctx.broker;
  if (!quotas.controllerMutation.enabled) return UNBOUNDED;
  return quotas.controllerMutation.quotaFor(
    ctx.session.principal.name,
    ctx.clientId ?? '',
    ctx.apiVersion >= strictSinceVersion,
  );
}

/** The response's throttle_time_ms; the connection is muted that long too (ctx.mutationThrottleMs). */
export function mutationThrottleMs(ctx: RequestContext, quota: ControllerMutationQuota): number {
  const ms = quota.throttleTimeMs(ctx.broker.now());
  if (ms > 0) ctx.mutationThrottleMs = ms;
  return ms;
}
