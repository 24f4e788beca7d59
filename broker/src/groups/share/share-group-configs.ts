// A share group's own settings (GROUP config resources, KIP-932; Kafka's GroupConfig share.*), read
// from storage at the group's first use on this broker and replaced at once when altered here
// (IncrementalAlterConfigs): the lock duration of the next acquisition, the session timeout and
// heartbeat interval of the next heartbeat, the isolation level of the next fetch and where a new
// share-partition starts. A value not set is the broker's (group.share.*).
import type { Logger } from '../../logger';
import type { Storage } from '../../storage/storage';
import { groupConfigResource } from '../group-configs';

export interface ShareGroupSettings {
  /** share.record.lock.duration.ms */
  lockDurationMs: number;
  /** share.session.timeout.ms */
  sessionTimeoutMs: number;
  /** share.heartbeat.interval.ms */
  heartbeatIntervalMs: number;
  /** share.isolation.level: read_committed delivers no record of an open or aborted transaction. */
  readCommitted: boolean;
  /** share.auto.offset.reset: latest, earliest or by_duration:<ISO-8601 duration>. */
  autoOffsetReset: string;
}

export type ShareGroupDefaults = Pick<
  ShareGroupSettings,
  'lockDurationMs' | 'sessionTimeoutMs' | 'heartbeatIntervalMs'
>;

export function shareSettingsOf(configs: Record<string, string>, defaults: ShareGroupDefaults): ShareGroupSettings {
  const n = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
  return {
    lockDurationMs: n(configs['share.record.lock.duration.ms'], defaults.lockDurationMs),
    sessionTimeoutMs: n(configs['share.session.timeout.ms'], defaults.sessionTimeoutMs),
    heartbeatIntervalMs: n(configs['share.heartbeat.interval.ms'], defaults.heartbeatIntervalMs),
    readCommitted: (configs['share.isolation.level'] ?? '').toLowerCase() === 'read_committed',
    autoOffsetReset: (configs['share.auto.offset.reset'] ?? 'latest').toLowerCase(),
  };
}

export class ShareGroupConfigs {
  private readonly settings = new Map<string, ShareGroupSettings>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
    readonly defaults: ShareGroupDefaults,
  ) {}

  /** The group's settings: cached after the first read; the broker's when the read fails. */
  async of(groupId: string): Promise<ShareGroupSettings> {
    const known = this.settings.get(groupId);
    if (known) return known;
    let configs: Record<string, string> = {};
    try {
      configs = await this.storage.brokerConfigs(groupConfigResource(groupId));
    } catch (err) {
      this.logger.error("reading a share group's configs failed; using the broker's settings for now", {
        groupId,
        err,
      });
      return shareSettingsOf({}, this.defaults);
    }
    const s = this.settings.get(groupId) ?? shareSettingsOf(configs, this.defaults);
    this.settings.set(groupId, s);
    return s;
  }

  /** The cached settings, or the broker's when the group was not read yet (no await: timers). */
  known(groupId: string): ShareGroupSettings {
    return this.settings.get(groupId) ?? shareSettingsOf({}, this.defaults);
  }

  /** Another broker changed configs (postgres://): every group's are read again at its next use. */
  forgetAll(): void {
    this.settings.clear();
  }

  /** The group's configs were altered on this broker: they apply from the next request on. */
  changed(groupId: string, configs: Record<string, string>): void {
    this.settings.set(groupId, shareSettingsOf(configs, this.defaults));
  }
}
