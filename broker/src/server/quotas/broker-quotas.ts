// All of a broker's quotas, built from the stored client quotas (storage.clientQuotas()) and
// rebuilt after each AlterClientQuotas. Handlers and connections reach it as `broker.quotas`.
import type { ClientQuotaEntry, Storage } from '../../storage/storage';
import { ClientQuotaManager } from './client-quota-manager';
import { ControllerMutationQuotas } from './controller-mutation-quotas';
import { IpConnectionRate } from './ip-connection-rate';
import { CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE, REQUEST_PERCENTAGE } from './quota-entities';
import type { RateWindow } from './sampled-rate';

export class BrokerQuotas {
  /** KIP-13: produce request bytes per second. */
  readonly produce: ClientQuotaManager;
  /** KIP-13: fetch response bytes per second. */
  readonly fetch: ClientQuotaManager;
  /** KIP-124: percent of one handler thread's time per second (here: the event loop's). */
  readonly request: ClientQuotaManager;
  /** KIP-612: new connections per second from one IP. */
  readonly connections: IpConnectionRate;
  /** KIP-599: partitions created or deleted per second (CreateTopics, CreatePartitions, DeleteTopics). */
  readonly controllerMutation: ControllerMutationQuotas;
  /** Some client quota (produce, fetch or request) is set: connections measure requests only then. */
  clientQuotasOn = false;

  private reloadsStarted = 0;
  private reloadApplied = 0;

  constructor(readonly window: RateWindow) {
    this.produce = new ClientQuotaManager(PRODUCER_BYTE_RATE, window);
    this.fetch = new ClientQuotaManager(CONSUMER_BYTE_RATE, window);
    this.request = new ClientQuotaManager(REQUEST_PERCENTAGE, window, window.windowMs);
    this.connections = new IpConnectionRate(window);
    this.controllerMutation = new ControllerMutationQuotas(window);
  }

  /** Reads the stored quotas again; an older read finishing last does not overwrite a newer one. */
  async reload(storage: Pick<Storage, 'clientQuotas'>): Promise<void> {
    const seq = ++this.reloadsStarted;
    const entries = await storage.clientQuotas();
    if (seq < this.reloadApplied) return;
    this.reloadApplied = seq;
    this.apply(entries);
  }

  /** Puts `entries` (every stored client quota) in force. */
  apply(entries: readonly ClientQuotaEntry[]): void {
    for (const m of [this.produce, this.fetch, this.request]) m.update(entries);
    this.connections.update(entries);
    this.controllerMutation.update(entries);
    this.clientQuotasOn = this.produce.enabled || this.fetch.enabled || this.request.enabled;
  }
}
