// How client quotas (server/quotas) measure rates; the quotas themselves are set with
// AlterClientQuotas.
import { int, Setting } from './setting';

export interface QuotaSettings {
  /** Samples a client quota's rate is measured over (quota.window.num). */
  quotaWindowNum: number;
  /** Length of one of those samples (quota.window.size.seconds). */
  quotaWindowSizeSeconds: number;
}

export const QUOTA_SETTINGS = [
  // Client quotas (server/quotas, KIP-13/124/612). Kafka's defaults: a rate is measured over 11
  // one-second samples, so a client may burst about ten seconds' worth before it is throttled.
  {
    key: 'quotaWindowNum',
    env: 'QUOTA_WINDOW_NUM',
    flag: 'quota-window-num',
    doc: "samples a client quota's rate is measured over (quota.window.num; Kafka's default); the quotas themselves are set with AlterClientQuotas (kafka-configs, `minnow quota set`)",
    default: '11',
    expected: 'an integer 2..1000',
    parse: int(2, 1000),
  },
  {
    key: 'quotaWindowSizeSeconds',
    env: 'QUOTA_WINDOW_SIZE_SECONDS',
    flag: 'quota-window-size-seconds',
    doc: "seconds of one of those samples (quota.window.size.seconds; Kafka's default); request-time and connection-rate throttles last at most one sample",
    default: '1',
    expected: 'an integer 1..3600',
    parse: int(1, 3600),
  },
] as const satisfies readonly Setting<QuotaSettings>[];
