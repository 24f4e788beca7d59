// KIP-612's per-IP connection creation rate (Kafka's ConnectionQuotas): the connection_creation_rate
// quota of the client's IP entity, else of the default IP entity; a connection over it is not
// served and is closed once its throttle time has passed.
import type { ClientQuotaEntry } from '../../storage/storage';
import { CONNECTION_CREATION_RATE, IP } from './quota-entities';
import { recordAndThrottle, RateWindow, SampledRate } from './sampled-rate';

export class IpConnectionRate {
  private perIp = new Map<string, number>();
  private defaultRate: number | undefined;
  private readonly sensors = new Map<string, SampledRate>();
  private lastSweepMs = 0;
  enabled = false;

  constructor(private readonly window: RateWindow) {}

  update(entries: readonly ClientQuotaEntry[]): void {
    const perIp = new Map<string, number>();
    let defaultRate: number | undefined;
    for (const { entity, values } of entries) {
      const rate = values[CONNECTION_CREATION_RATE];
      if (rate === undefined || !(IP in entity)) continue;
      const ip = entity[IP];
      if (ip === null || ip === undefined) defaultRate = rate;
      else perIp.set(ip, rate);
    }
    this.perIp = perIp;
    this.defaultRate = defaultRate;
    this.enabled = perIp.size > 0 || defaultRate !== undefined;
    this.sensors.clear(); // Kafka recreates an IP's sensor when its quota changes
  }

  rateFor(ip: string): number | undefined {
    return this.perIp.get(ip) ?? this.defaultRate;
  }

  /**
   * Counts a new connection from `ip`; returns 0 to accept it, else how long to hold it before
   * closing it (bounded by one window, as Kafka does). A refused connection is not counted.
   */
  recordAndGetThrottleTimeMs(ip: string, nowMs: number): number {
    if (!this.enabled) return 0;
    const bound = this.rateFor(ip);
    if (bound === undefined) return 0;
    if (nowMs - this.lastSweepMs >= 60_000) {
      this.lastSweepMs = nowMs;
      for (const [k, r] of this.sensors) if (r.idleSince(nowMs)) this.sensors.delete(k);
    }
    let rate = this.sensors.get(ip);
    if (!rate) this.sensors.set(ip, (rate = new SampledRate(this.window)));
    const throttle = recordAndThrottle(rate, 1, bound, nowMs);
    if (throttle > 0) rate.record(-1, nowMs); // "unrecord the connection since we won't accept it"
    return Math.min(throttle, this.window.windowMs);
  }
}
