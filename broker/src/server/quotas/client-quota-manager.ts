// One kind of client quota (produce bytes, fetch bytes or request time) as Kafka's
// ClientQuotaManager keeps it: the quotas set on user / client-id entities, which one applies to a
// (user, client id), and a sampled rate per quota "sensor" that requests are recorded against.
import type { ClientQuotaEntry } from '../../storage/storage';
import { CLIENT_ID, USER } from './quota-entities';
import { recordAndThrottle, RateWindow, SampledRate } from './sampled-rate';

/** undefined: the entity has no part of that type; null: the type's default entity. */
type Part = string | null | undefined;
const entityKey = (user: Part, clientId: Part) =>
  JSON.stringify([user === undefined ? 0 : user, clientId === undefined ? 0 : clientId]);

/** Which sensor a (user, client id) records into and its bound: Kafka's metric tags and quota limit. */
export interface Resolved {
  sensor: string;
  bound: number;
}

/** Resolutions cached per (user, client id); cleared past this many, so odd client ids cannot grow it. */
const MAX_RESOLVED = 10_000;
/** How often idle sensors are dropped (an idle one measures as a new one would: nothing is lost). */
const SWEEP_INTERVAL_MS = 60_000;

export class ClientQuotaManager {
  /** entityKey -> bound, only entities setting this manager's key. */
  private overrides = new Map<string, number>();
  /** user -> client id -> resolution (two levels: no key string to build per request). */
  private readonly resolved = new Map<string, Map<string, Resolved | null>>();
  private resolvedCount = 0;
  private readonly sensors = new Map<string, SampledRate>();
  private lastSweepMs = 0;
  /** Some entity sets this key: when false every call returns at once (the no-quota hot path). */
  enabled = false;

  constructor(
    /** producer_byte_rate, consumer_byte_rate or request_percentage. */
    readonly key: string,
    private readonly window: RateWindow,
    /** Request-time throttles are bounded by one window (ClientRequestQuotaManager); byte rates are not. */
    private readonly maxThrottleMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Takes the stored quotas (at start and after each AlterClientQuotas). */
  update(entries: readonly ClientQuotaEntry[]): void {
    const overrides = new Map<string, number>();
    for (const { entity, values } of entries) {
      const bound = values[this.key];
      if (bound === undefined || !(USER in entity || CLIENT_ID in entity)) continue;
      overrides.set(entityKey(entity[USER], entity[CLIENT_ID]), bound);
    }
    this.overrides = overrides;
    this.resolved.clear();
    this.resolvedCount = 0;
    this.enabled = overrides.size > 0;
    if (!this.enabled) this.sensors.clear();
  }

  /**
   * Records `value` for the (user, client id) and returns how long to throttle it, 0 within quota.
   * `user` is the principal's name ("alice", "ANONYMOUS"), as Kafka's user entities name it.
   */
  recordAndGetThrottleTimeMs(user: string, clientId: string, value: number, nowMs: number): number {
    if (!this.enabled) return 0;
    const r = this.resolve(user, clientId);
    if (!r) return 0;
    this.sweep(nowMs);
    let rate = this.sensors.get(r.sensor);
    if (!rate) this.sensors.set(r.sensor, (rate = new SampledRate(this.window)));
    return Math.min(recordAndThrottle(rate, value, r.bound, nowMs), this.maxThrottleMs);
  }

  /** Takes back a recorded value (a throttled fetch answers empty: its bytes were not sent). */
  unrecord(user: string, clientId: string, value: number, nowMs: number): void {
    if (!this.enabled) return;
    const r = this.resolve(user, clientId);
    if (r) this.sensors.get(r.sensor)?.record(-value, nowMs);
  }

  /** The most one window may carry (getMaxValueInQuotaWindow): a fetch is never sized above it. */
  maxValueInQuotaWindow(user: string, clientId: string): number {
    if (!this.enabled) return Number.POSITIVE_INFINITY;
    const r = this.resolve(user, clientId);
    return r ? (r.bound * (this.window.samples - 1) * this.window.windowMs) / 1000 : Number.POSITIVE_INFINITY;
  }

  /** The bound that applies to the (user, client id), if any (for tests and describing). */
  quotaFor(user: string, clientId: string): number | undefined {
    return this.resolve(user, clientId)?.bound;
  }

  /**
   * Which usage the (user, client id) counts toward (its sensor) and the bound, or null when no
   * quota applies: for managers that measure in their own way (controller-mutation-quotas.ts).
   */
  resolve(user: string, clientId: string): Resolved | null {
    return this.enabled ? this.resolveEnabled(user, clientId) : null;
  }

  private resolveEnabled(user: string, clientId: string): Resolved | null {
    let byClient = this.resolved.get(user);
    let r = byClient?.get(clientId);
    if (r === undefined) {
      if (this.resolvedCount >= MAX_RESOLVED) {
        this.resolved.clear();
        this.resolvedCount = 0;
        byClient = undefined;
      }
      if (!byClient) this.resolved.set(user, (byClient = new Map()));
      const [userTag, clientTag] = this.metricTags(user, clientId);
      const bound = this.quotaLimit(userTag, clientTag);
      r = bound === undefined ? null : { sensor: `${userTag}\u0000${clientTag}`, bound };
      byClient.set(clientId, r);
      this.resolvedCount++;
    }
    return r;
  }

  /**
   * DefaultQuotaCallback.quotaMetricTags: which usage a request counts toward. The most specific
   * entity set wins, in Kafka's order: user+client-id, user+default client-id, user, default
   * user+client-id, default user+default client-id, default user, client-id, default client-id.
   * A user quota is shared by all of that user's client ids; a client-id quota by all users.
   */
  private metricTags(user: string, clientId: string): [string, string] {
    const has = (u: Part, c: Part) => this.overrides.has(entityKey(u, c));
    if (has(user, clientId) || has(user, null)) return [user, clientId];
    if (has(user, undefined)) return [user, ''];
    if (has(null, clientId) || has(null, null)) return [user, clientId];
    if (has(null, undefined)) return [user, ''];
    return ['', clientId];
  }

  /** DefaultQuotaCallback.quotaLimit: the bound for a sensor's tags, undefined when none applies. */
  private quotaLimit(userTag: string, clientTag: string): number | undefined {
    const get = (u: Part, c: Part) => this.overrides.get(entityKey(u, c));
    if (userTag !== '' && clientTag !== '')
      return get(userTag, clientTag) ?? get(userTag, null) ?? get(null, clientTag) ?? get(null, null);
    if (userTag !== '') return get(userTag, undefined) ?? get(null, undefined);
    if (clientTag !== '') return get(undefined, clientTag) ?? get(undefined, null);
    return undefined;
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.lastSweepMs = nowMs;
    for (const [k, rate] of this.sensors) if (rate.idleSince(nowMs)) this.sensors.delete(k);
  }
}
