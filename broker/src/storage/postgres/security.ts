// The postgres:// engine's ACLs, client quotas, SCRAM credentials and dynamic broker configs
// (tables acl, client_quota, scram_credential, broker_config; same semantics as sqlite's). Each
// change is one transaction of a few statements (arrays through unnest, not a statement per row)
// and ends with pg_notify('minnow_security', kind), so other brokers sharing the database can
// reload their caches (docs/postgres.md). Inside the transaction, unlike appends' notices
// (log-writes.ts): delivered if and only if the change committed, so no broker keeps enforcing
// an ACL that was deleted; these changes are rare, so the NOTIFY lock through commit costs nothing.
import type { AclBinding } from '../../protocol/acl';
import type { ScramCredential, ScramMechanismName } from '../../sasl/scram-crypto';
import { clientQuotaEntityFromKey, clientQuotaEntityKey } from '../client-quota-key';
import type { ClientQuotaChange, ClientQuotaEntry, UserScramCredential, UserScramCredentialInfo } from '../storage';
import type { Db, Queryable } from './db';

/** The NOTIFY channel a security change is announced on; the payload names what changed. */
export const SECURITY_CHANNEL = 'minnow_security';
export type SecurityChange = 'acl' | 'quota' | 'scram' | 'broker_config';

/** The change a minnow_security notice names; undefined for a payload this version does not know. */
export function parseSecurityNotice(payload: string | undefined): SecurityChange | undefined {
  return payload === 'acl' || payload === 'quota' || payload === 'scram' || payload === 'broker_config'
    ? payload
    : undefined;
}

/** How long a broker serves dynamic broker configs from its cache before reading them again. */
const BROKER_CONFIG_TTL_MS = 1000;

const ACL_COLUMNS = 'resource_type, resource_name, pattern_type, principal, host, operation, permission_type';
const ACL_UNNEST = 'unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])';

export class PgSecurity {
  private brokerConfigCache: { at: number; byResource: Map<string, Record<string, string>> } | undefined;
  /** Bumped by each change: a load that began before it does not fill the cache. */
  private brokerConfigGeneration = 0;

  constructor(private readonly db: Db) {}

  // ACLs: read whole by the authorizer, which reloads after a change (none on the produce path).
  async listAcls(): Promise<AclBinding[]> {
    return this.db.query<AclBinding>(
      `SELECT resource_type AS "resourceType", resource_name AS "resourceName", pattern_type AS "patternType",
         principal, host, operation, permission_type AS "permissionType" FROM acl`,
    );
  }

  async createAcls(bindings: readonly AclBinding[]): Promise<void> {
    if (bindings.length === 0) return;
    await this.db.tx(async (q) => {
      await serialize(q, 'acl');
      await q.query(
        `INSERT INTO acl (${ACL_COLUMNS}) SELECT * FROM ${ACL_UNNEST} ON CONFLICT DO NOTHING`,
        aclColumns(bindings),
      );
      await notify(q, 'acl');
    });
  }

  async deleteAcls(bindings: readonly AclBinding[]): Promise<number> {
    if (bindings.length === 0) return 0;
    return this.db.tx(async (q) => {
      await serialize(q, 'acl');
      const rows = await q.query(
        `DELETE FROM acl WHERE (${ACL_COLUMNS}) IN (SELECT * FROM ${ACL_UNNEST}) RETURNING 1`,
        aclColumns(bindings),
      );
      if (rows.length > 0) await notify(q, 'acl');
      return rows.length;
    });
  }

  // Client quotas (KIP-546): read at start and after each AlterClientQuotas, never per request.
  async clientQuotas(): Promise<ClientQuotaEntry[]> {
    const rows = await this.db.query<{ entity: string; key: string; value: number }>(
      'SELECT entity, key, value FROM client_quota ORDER BY entity, key',
    );
    const byEntity = new Map<string, Record<string, number>>();
    for (const r of rows) {
      const values = byEntity.get(r.entity) ?? {};
      values[r.key] = r.value;
      byEntity.set(r.entity, values);
    }
    return [...byEntity].map(([key, values]) => ({ entity: clientQuotaEntityFromKey(key), values }));
  }

  async alterClientQuotas(changes: readonly ClientQuotaChange[]): Promise<void> {
    if (changes.length === 0) return;
    await this.db.tx(async (q) => {
      await serialize(q, 'quota');
      // In order, as sqlite applies them: a later change of the same entity wins.
      for (const c of changes) {
        const entity = clientQuotaEntityKey(c.entity);
        if (c.remove.length > 0)
          await q.query('DELETE FROM client_quota WHERE entity = $1 AND key = ANY($2::text[])', [
            entity,
            [...c.remove],
          ]);
        const set = Object.entries(c.set);
        if (set.length > 0)
          await q.query(
            `INSERT INTO client_quota (entity, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::float8[]) AS x(k, v)
             ON CONFLICT (entity, key) DO UPDATE SET value = excluded.value`,
            [entity, set.map(([k]) => k), set.map(([, v]) => v)],
          );
      }
      await notify(q, 'quota');
    });
  }

  // SCRAM credentials: one primary-key probe per login, no cache (a change is seen at the next login).
  async scramCredential(user: string, mechanism: ScramMechanismName): Promise<ScramCredential | undefined> {
    const [r] = await this.db.query<{ salt: Buffer; iterations: number; stored_key: Buffer; server_key: Buffer }>(
      'SELECT salt, iterations, stored_key, server_key FROM scram_credential WHERE user_name = $1 AND mechanism = $2',
      [user, mechanism],
    );
    return r && { salt: r.salt, iterations: r.iterations, storedKey: r.stored_key, serverKey: r.server_key };
  }

  async scramCredentials(): Promise<UserScramCredentialInfo[]> {
    // COLLATE "C": byte order, as SQLite sorts text (the database's locale could order differently).
    const rows = await this.db.query<{ user_name: string; mechanism: ScramMechanismName; iterations: number }>(
      'SELECT user_name, mechanism, iterations FROM scram_credential ORDER BY user_name COLLATE "C", mechanism COLLATE "C"',
    );
    return rows.map((r) => ({ user: r.user_name, mechanism: r.mechanism, iterations: r.iterations }));
  }

  async alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): Promise<void> {
    if (upserts.length === 0 && deletions.length === 0) return;
    await this.db.tx(async (q) => {
      await serialize(q, 'scram');
      if (deletions.length > 0)
        await q.query(
          `DELETE FROM scram_credential WHERE (user_name, mechanism) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
          [deletions.map((d) => d.user), deletions.map((d) => d.mechanism)],
        );
      // One statement per upsert: ON CONFLICT may not touch one row twice in a statement, and
      // the caller may list a user's mechanism twice (the last wins, as in sqlite).
      for (const u of upserts)
        await q.query(
          `INSERT INTO scram_credential (user_name, mechanism, salt, iterations, stored_key, server_key)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (user_name, mechanism) DO UPDATE SET salt = excluded.salt, iterations = excluded.iterations,
             stored_key = excluded.stored_key, server_key = excluded.server_key`,
          [u.user, u.mechanism, u.salt, u.iterations, u.storedKey, u.serverKey],
        );
      await notify(q, 'scram');
    });
  }

  // Dynamic broker configs (KIP-226), read on every produce: cached for BROKER_CONFIG_TTL_MS, so
  // another broker's change is seen within that (Kafka propagates them asynchronously too).
  async brokerConfigs(resource: string): Promise<Record<string, string>> {
    const now = Date.now();
    let cache = this.brokerConfigCache;
    if (!cache || now - cache.at >= BROKER_CONFIG_TTL_MS) cache = await this.loadBrokerConfigs(now);
    return { ...cache.byResource.get(resource) };
  }

  async alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): Promise<void> {
    try {
      await this.db.tx(async (q) => {
        await serialize(q, 'broker_config');
        if (remove.length > 0)
          await q.query('DELETE FROM broker_config WHERE resource = $1 AND name = ANY($2::text[])', [
            resource,
            [...remove],
          ]);
        const entries = Object.entries(set);
        if (entries.length > 0)
          await q.query(
            `INSERT INTO broker_config (resource, name, value) SELECT $1, n, v FROM unnest($2::text[], $3::text[]) AS x(n, v)
             ON CONFLICT (resource, name) DO UPDATE SET value = excluded.value`,
            [resource, entries.map(([n]) => n), entries.map(([, v]) => v)],
          );
        await notify(q, 'broker_config');
      });
    } finally {
      // Read again whether it committed or not: this broker sees its own change at once.
      this.invalidate();
    }
  }

  /** Forgets cached configs (another broker announced a change). */
  invalidate(): void {
    this.brokerConfigGeneration++;
    this.brokerConfigCache = undefined;
  }

  private async loadBrokerConfigs(now: number) {
    const generation = this.brokerConfigGeneration;
    const rows = await this.db.query<{ resource: string; name: string; value: string }>(
      'SELECT resource, name, value FROM broker_config',
    );
    const byResource = new Map<string, Record<string, string>>();
    for (const r of rows) {
      const m = byResource.get(r.resource) ?? {};
      m[r.name] = r.value;
      byResource.set(r.resource, m);
    }
    const cache = { at: now, byResource };
    if (generation === this.brokerConfigGeneration) this.brokerConfigCache = cache;
    return cache;
  }
}

function aclColumns(bindings: readonly AclBinding[]): string[][] {
  return [
    bindings.map((b) => b.resourceType),
    bindings.map((b) => b.resourceName),
    bindings.map((b) => b.patternType),
    bindings.map((b) => b.principal),
    bindings.map((b) => b.host),
    bindings.map((b) => b.operation),
    bindings.map((b) => b.permissionType),
  ];
}

/** The advisory lock namespace (first int4 key) of security changes; the second is the kind's index. */
const SECURITY_LOCK_SPACE = 0x736563; // "sec"
const KINDS: readonly SecurityChange[] = ['acl', 'quota', 'scram', 'broker_config'];

/**
 * Changes of one kind take turns (the first lock each takes: docs/postgres.md "Lock order"): their
 * rows come in request order, and two brokers' changes over the same rows in different orders
 * could otherwise deadlock. Rare admin requests: the wait costs nothing.
 */
function serialize(q: Queryable, kind: SecurityChange): Promise<unknown> {
  return q.query('SELECT pg_advisory_xact_lock($1, $2)', [SECURITY_LOCK_SPACE, KINDS.indexOf(kind)]);
}

function notify(q: Queryable, what: SecurityChange): Promise<unknown> {
  return q.query('SELECT pg_notify($1, $2)', [SECURITY_CHANNEL, what]);
}
