// The memory:// engine's cluster administration state: dynamic broker configs, client quotas,
// SCRAM credentials and ACLs (admin-store.ts), copied in and out.
import { bindingKey } from '../../protocol/acl';
import type { AclBinding } from '../../protocol/acl';
import type { ScramCredential, ScramMechanismName } from '../../sasl/scram-crypto';
import { clientQuotaEntityFromKey, clientQuotaEntityKey } from '../client-quota-key';
import type {
  AclStore,
  BrokerConfigStore,
  ClientQuotaChange,
  ClientQuotaEntry,
  ClientQuotaStore,
  ScramStore,
  UserScramCredential,
  UserScramCredentialInfo,
} from '../storage';

export class MemoryAdmin implements BrokerConfigStore, ClientQuotaStore, ScramStore, AclStore {
  private readonly brokerConfigValues = new Map<string, Record<string, string>>();
  /** By bindingKey: a binding is stored once. */
  private readonly acls = new Map<string, AclBinding>();
  /** By clientQuotaEntityKey(entity). */
  private readonly clientQuotaValues = new Map<string, Record<string, number>>();
  /** By `user NUL mechanism`. */
  private readonly scram = new Map<string, UserScramCredential>();

  brokerConfigs(resource: string): Record<string, string> {
    return { ...this.brokerConfigValues.get(resource) };
  }
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): void {
    const configs = { ...this.brokerConfigValues.get(resource) };
    for (const k of remove) delete configs[k];
    Object.assign(configs, set);
    this.brokerConfigValues.set(resource, configs);
  }

  scramCredential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    const c = this.scram.get(`${user}\u0000${mechanism}`);
    return (
      c && {
        salt: Buffer.from(c.salt),
        iterations: c.iterations,
        storedKey: Buffer.from(c.storedKey),
        serverKey: Buffer.from(c.serverKey),
      }
    );
  }
  scramCredentials(): UserScramCredentialInfo[] {
    return [...this.scram.values()]
      .map(({ user, mechanism, iterations }) => ({ user, mechanism, iterations }))
      .sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : a.mechanism < b.mechanism ? -1 : 1));
  }
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void {
    for (const d of deletions) this.scram.delete(`${d.user}\u0000${d.mechanism}`);
    for (const u of upserts)
      this.scram.set(`${u.user}\u0000${u.mechanism}`, {
        ...u,
        salt: Buffer.from(u.salt),
        storedKey: Buffer.from(u.storedKey),
        serverKey: Buffer.from(u.serverKey),
      });
  }

  clientQuotas(): ClientQuotaEntry[] {
    return [...this.clientQuotaValues].map(([key, values]) => ({
      entity: clientQuotaEntityFromKey(key),
      values: { ...values },
    }));
  }
  alterClientQuotas(changes: readonly ClientQuotaChange[]): void {
    for (const c of changes) {
      const key = clientQuotaEntityKey(c.entity);
      const values = { ...this.clientQuotaValues.get(key) };
      for (const k of c.remove) delete values[k];
      Object.assign(values, c.set);
      if (Object.keys(values).length > 0) this.clientQuotaValues.set(key, values);
      else this.clientQuotaValues.delete(key);
    }
  }

  listAcls(): AclBinding[] {
    return [...this.acls.values()].map((b) => ({ ...b }));
  }
  createAcls(bindings: readonly AclBinding[]): void {
    for (const b of bindings) if (!this.acls.has(bindingKey(b))) this.acls.set(bindingKey(b), { ...b });
  }
  deleteAcls(bindings: readonly AclBinding[]): number {
    return bindings.reduce((n, b) => n + (this.acls.delete(bindingKey(b)) ? 1 : 0), 0);
  }
}
