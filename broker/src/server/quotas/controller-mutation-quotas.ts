// KIP-599 controller_mutation_rate: partitions created or deleted per second by a user / client id,
// as Kafka's ControllerMutationQuotaManager measures them: a token bucket per quota sensor holding
// at most samples x window-seconds x rate tokens (TokenBucket), refilled at `rate` per second.
// CreateTopics, CreatePartitions and DeleteTopics open one quota per request and charge each
// topic's partitions once it passed every other check (ReplicationControlManager's
// applyPartitionChangeQuota); newer versions get a strict quota (a topic charged while the bucket
// is below zero is refused with THROTTLING_QUOTA_EXCEEDED), older ones a permissive one (it is
// created, and only the response is throttled). The entity resolution is the other quotas'
// (client-quota-manager.ts). Each broker keeps its own buckets (Kafka's controller keeps one).
// https://cwiki.apache.org/confluence/display/KAFKA/KIP-599%3A+Throttle+Create+Topic%2C+Create+Partition+and+Delete+Topic+Operations
import type { ClientQuotaEntry } from '../../storage/storage';
import type { RequestContext } from '../context';
import { ClientQuotaManager } from './client-quota-manager';
import { CONTROLLER_MUTATION_RATE } from './quota-entities';
import type { RateWindow } from './sampled-rate';

/** Kafka's Errors.THROTTLING_QUOTA_EXCEEDED text. */
export const THROTTLING_QUOTA_EXCEEDED_MESSAGE = 'The throttling quota has been exceeded.';

/** How often buckets that refilled completely are dropped (one would start full again anyway). */
const SWEEP_INTERVAL_MS = 60_000;

/** Kafka's TokenBucket: starts full, refills at `bound` per second up to `burst`, may go below zero. */
class TokenBucket {
  private tokens: number;
  /** When the bucket is full again if nothing is charged: from then on it is as a new one. */
  fullAtMs: number;

  constructor(
    burst: number,
    private lastMs: number,
  ) {
    this.tokens = burst;
    this.fullAtMs = lastMs;
  }

  measure(bound: number, burst: number, nowMs: number): number {
    this.tokens = Math.min(burst, this.tokens + (bound * Math.max(0, nowMs - this.lastMs)) / 1000);
    this.lastMs = nowMs;
    return this.tokens;
  }

  record(value: number, bound: number, burst: number, nowMs: number): number {
    this.tokens = Math.min(burst, this.measure(bound, burst, nowMs) - value);
    this.fullAtMs = nowMs + ((burst - this.tokens) / bound) * 1000;
    return this.tokens;
  }
}

/** One request's view of its client's quota (Kafka's ControllerMutationQuota). */
export interface ControllerMutationQuota {
  /** Charges `partitions`; a refusal (strict quota, bucket below zero) says how long to wait. */
  record(partitions: number, nowMs: number): { throttleMs: number; message: string } | undefined;
  /** The throttle time of the last violation, less the time since (for the response). */
  throttleTimeMs(nowMs: number): number;
}

const UNBOUNDED: ControllerMutationQuota = { record: () => undefined, throttleTimeMs: () => 0 };

export class ControllerMutationQuotas {
  private readonly resolver: ClientQuotaManager;
  private readonly buckets = new Map<string, TokenBucket>();
  private lastSweepMs = 0;

  constructor(private readonly window: RateWindow) {
    this.resolver = new ClientQuotaManager(CONTROLLER_MUTATION_RATE, window);
  }

  get enabled(): boolean {
    return this.resolver.enabled;
  }

  /** Takes the stored quotas; buckets keep their tokens (Kafka changes only the sensor's bound). */
  update(entries: readonly ClientQuotaEntry[]): void {
    this.resolver.update(entries);
    if (!this.resolver.enabled) this.buckets.clear();
  }

  /**
   * The quota a request of (user, client id) charges: strict for the versions that may answer
   * THROTTLING_QUOTA_EXCEEDED (ControllerMutationQuotaManager.newQuotaFor(request, strictSinceVersion)).
   */
  quotaFor(user: string, clientId: string, strict: boolean): ControllerMutationQuota {
    const r = this.resolver.resolve(user, clientId);
    if (!r) return UNBOUNDED;
    const { bound } = r;
    const burst = (this.window.samples * this.window.windowMs * bound) / 1000;
    const bucketAt = (nowMs: number) => {
      this.sweep(nowMs);
      let b = this.buckets.get(r.sensor);
      if (!b) this.buckets.set(r.sensor, (b = new TokenBucket(burst, nowMs)));
      return b;
    };
    // ControllerMutationQuotaManager.throttleTimeMs: the time the bucket needs to be back at zero.
    const toZeroMs = (tokens: number) => Math.round((-tokens / bound) * 1000);
    let lastThrottleMs = 0;
    let lastRecordedMs = 0;
    const describe = (throttleMs: number) =>
      `${THROTTLING_QUOTA_EXCEEDED_MESSAGE} (controller_mutation_rate ${bound} partitions/s for user ${JSON.stringify(user)}, client id ${JSON.stringify(clientId)}: retry in ${throttleMs} ms)`;
    return {
      record(partitions, nowMs) {
        const bucket = bucketAt(nowMs);
        if (strict) {
          // StrictControllerMutationQuota: refused while the bucket is below zero; otherwise
          // charged in full, even if that takes it below zero.
          const tokens = bucket.measure(bound, burst, nowMs);
          if (tokens < 0) {
            lastThrottleMs = toZeroMs(tokens);
            lastRecordedMs = nowMs;
            return { throttleMs: lastThrottleMs, message: describe(lastThrottleMs) };
          }
          bucket.record(partitions, bound, burst, nowMs);
          return undefined;
        }
        // PermissiveControllerMutationQuota: always charged and done; below zero only throttles.
        const tokens = bucket.record(partitions, bound, burst, nowMs);
        if (tokens < 0) {
          lastThrottleMs = toZeroMs(tokens);
          lastRecordedMs = nowMs;
        }
        return undefined;
      },
      throttleTimeMs(nowMs) {
        return Math.max(0, lastThrottleMs - (nowMs - lastRecordedMs));
      },
    };
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.lastSweepMs = nowMs;
    for (const [k, b] of this.buckets) if (nowMs >= b.fullAtMs) this.buckets.delete(k);
  }
}

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
