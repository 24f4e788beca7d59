// Classic group membership (storage/group-metadata.ts) on SQLite: one group_metadata row and its
// group_member rows, replaced whole in one transaction, as each rebalance writes them.
import type Database from 'better-sqlite3';
import type { StoredGroup, StoredGroupMember } from '../group-metadata';
import type { Transactor } from './transaction';

interface GroupRow {
  protocolType: string | null;
  generationId: number;
  protocolName: string | null;
  leaderId: string | null;
  updatedMs: number;
}

export class GroupMetadataStore {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      upsert: db.prepare(
        `INSERT INTO group_metadata (group_id, protocol_type, generation, protocol_name, leader_id, updated_ms)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET protocol_type = excluded.protocol_type, generation = excluded.generation,
           protocol_name = excluded.protocol_name, leader_id = excluded.leader_id, updated_ms = excluded.updated_ms`,
      ),
      insertMember: db.prepare(
        `INSERT INTO group_member (group_id, member_id, join_order, group_instance_id, client_id, client_host,
           rebalance_timeout_ms, session_timeout_ms, subscription, assignment)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      deleteMembers: db.prepare('DELETE FROM group_member WHERE group_id = ?'),
      deleteGroup: db.prepare('DELETE FROM group_metadata WHERE group_id = ?'),
      group: db.prepare(
        `SELECT protocol_type AS protocolType, generation AS generationId, protocol_name AS protocolName,
           leader_id AS leaderId, updated_ms AS updatedMs FROM group_metadata WHERE group_id = ?`,
      ),
      members: db.prepare(
        `SELECT member_id AS memberId, group_instance_id AS groupInstanceId, client_id AS clientId,
           client_host AS clientHost, rebalance_timeout_ms AS rebalanceTimeoutMs,
           session_timeout_ms AS sessionTimeoutMs, subscription, assignment
         FROM group_member WHERE group_id = ? ORDER BY join_order`,
      ),
    };
  }

  store(groupId: string, group: StoredGroup | null): void {
    this.tx.run(() => {
      this.q.deleteMembers.run(groupId);
      if (group === null) {
        this.q.deleteGroup.run(groupId);
        return;
      }
      this.q.upsert.run(
        groupId,
        group.protocolType,
        group.generationId,
        group.protocolName,
        group.leaderId,
        group.updatedMs,
      );
      group.members.forEach((m, i) =>
        this.q.insertMember.run(
          groupId,
          m.memberId,
          i,
          m.groupInstanceId,
          m.clientId,
          m.clientHost,
          m.rebalanceTimeoutMs,
          m.sessionTimeoutMs,
          m.subscription,
          m.assignment,
        ),
      );
    });
  }

  load(groupId: string): StoredGroup | undefined {
    const row = this.q.group.get(groupId) as GroupRow | undefined;
    if (!row) return undefined;
    return { groupId, ...row, members: this.q.members.all(groupId) as StoredGroupMember[] };
  }
}
