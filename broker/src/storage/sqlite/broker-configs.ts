// Dynamic broker configs (table broker_config), cached in memory: produce reads the broker-level
// topic defaults (message.max.bytes ...) on every request.
import type Database from 'better-sqlite3';
import type { Transactor } from './transaction';

export class BrokerConfigs {
  private cache = new Map<string, Record<string, string>>();
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      all: db.prepare('SELECT resource, name, value FROM broker_config'),
      set: db.prepare(
        'INSERT INTO broker_config (resource, name, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
      ),
      remove: db.prepare('DELETE FROM broker_config WHERE resource = ? AND name = ?'),
    };
    this.load();
  }

  private load(): void {
    this.cache = new Map();
    for (const r of this.q.all.all() as { resource: string; name: string; value: string }[]) {
      const m = this.cache.get(r.resource) ?? {};
      m[r.name] = r.value;
      this.cache.set(r.resource, m);
    }
  }

  get(resource: string): Record<string, string> {
    return { ...this.cache.get(resource) };
  }

  alter(resource: string, set: Record<string, string>, remove: readonly string[]): void {
    try {
      this.tx.run(() => {
        for (const name of remove) this.q.remove.run(resource, name);
        for (const [name, value] of Object.entries(set)) this.q.set.run(resource, name, value);
      });
    } finally {
      // Reload whether it committed or not, so the cache never shows a rolled-back change.
      this.load();
    }
  }
}
