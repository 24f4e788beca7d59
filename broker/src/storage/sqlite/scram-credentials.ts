// SASL/SCRAM credentials (table scram_credential). Read at every login, so each lookup is one
// primary-key probe; no cache, so a credential altered by another process sharing nothing is moot
// (one broker per file) and a change is seen at the next login.
import type Database from 'better-sqlite3';
import type { ScramCredential, ScramMechanismName } from '../../sasl/scram-crypto';
import type { UserScramCredential, UserScramCredentialInfo } from '../storage';
import type { Transactor } from './transaction';

interface Row {
  salt: Buffer;
  iterations: number;
  stored_key: Buffer;
  server_key: Buffer;
}

export class ScramCredentials {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      get: db.prepare(
        'SELECT salt, iterations, stored_key, server_key FROM scram_credential WHERE user_name = ? AND mechanism = ?',
      ),
      list: db.prepare('SELECT user_name, mechanism, iterations FROM scram_credential ORDER BY user_name, mechanism'),
      upsert: db.prepare(
        `INSERT INTO scram_credential (user_name, mechanism, salt, iterations, stored_key, server_key)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET salt = excluded.salt, iterations = excluded.iterations,
           stored_key = excluded.stored_key, server_key = excluded.server_key`,
      ),
      remove: db.prepare('DELETE FROM scram_credential WHERE user_name = ? AND mechanism = ?'),
    };
  }

  get(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    const r = this.q.get.get(user, mechanism) as Row | undefined;
    return r && { salt: r.salt, iterations: r.iterations, storedKey: r.stored_key, serverKey: r.server_key };
  }

  list(): UserScramCredentialInfo[] {
    return (this.q.list.all() as { user_name: string; mechanism: ScramMechanismName; iterations: number }[]).map(
      (r) => ({ user: r.user_name, mechanism: r.mechanism, iterations: r.iterations }),
    );
  }

  alter(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void {
    this.tx.run(() => {
      for (const d of deletions) this.q.remove.run(d.user, d.mechanism);
      for (const u of upserts) this.q.upsert.run(u.user, u.mechanism, u.salt, u.iterations, u.storedKey, u.serverKey);
    });
  }
}
