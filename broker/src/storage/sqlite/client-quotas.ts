// Client quotas (table client_quota), cached in memory: the broker reads them at start and after
// every AlterClientQuotas, never per request.
import type Database from 'better-sqlite3';
import { clientQuotaEntityFromKey, clientQuotaEntityKey } from '../client-quota-key';
import type { ClientQuotaChange, ClientQuotaEntry } from '../storage';
import type { Transactor } from './transaction';

export class ClientQuotas {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      all: db.prepare('SELECT entity, key, value FROM client_quota ORDER BY entity, key'),
      set: db.prepare(
        'INSERT INTO client_quota (entity, key, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
      ),
      remove: db.prepare('DELETE FROM client_quota WHERE entity = ? AND key = ?'),
    };
  }

  list(): ClientQuotaEntry[] {
    const byEntity = new Map<string, Record<string, number>>();
    for (const r of this.q.all.all() as { entity: string; key: string; value: number }[]) {
      const values = byEntity.get(r.entity) ?? {};
      values[r.key] = r.value;
      byEntity.set(r.entity, values);
    }
    return [...byEntity].map(([key, values]) => ({ entity: clientQuotaEntityFromKey(key), values }));
  }

  alter(changes: readonly ClientQuotaChange[]): void {
    this.tx.run(() => {
      for (const c of changes) {
        const entity = clientQuotaEntityKey(c.entity);
        for (const key of c.remove) this.q.remove.run(entity, key);
        for (const [key, value] of Object.entries(c.set)) this.q.set.run(entity, key, value);
      }
    });
  }
}
