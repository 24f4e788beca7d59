// ACL bindings (table acl). Read whole: the authorizer builds its own index from them and reloads
// only after a change, so nothing here is on the produce/fetch path.
import type Database from 'better-sqlite3';
import type { AclBinding } from '../../protocol/acl';
import type { Transactor } from './transaction';

const COLUMNS =
  'resource_type AS resourceType, resource_name AS resourceName, pattern_type AS patternType, principal, host, operation, permission_type AS permissionType';

export class Acls {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      all: db.prepare(`SELECT ${COLUMNS} FROM acl`),
      insert: db.prepare(
        'INSERT OR IGNORE INTO acl (resource_type, resource_name, pattern_type, principal, host, operation, permission_type) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      remove: db.prepare(
        'DELETE FROM acl WHERE resource_type = ? AND resource_name = ? AND pattern_type = ? AND principal = ? AND host = ? AND operation = ? AND permission_type = ?',
      ),
    };
  }

  list(): AclBinding[] {
    return this.q.all.all() as AclBinding[];
  }

  create(bindings: readonly AclBinding[]): void {
    this.tx.run(() => {
      for (const b of bindings) this.q.insert.run(...fields(b));
    });
  }

  delete(bindings: readonly AclBinding[]): number {
    return this.tx.run(() => bindings.reduce((n, b) => n + this.q.remove.run(...fields(b)).changes, 0));
  }
}

function fields(b: AclBinding): string[] {
  return [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permissionType];
}
