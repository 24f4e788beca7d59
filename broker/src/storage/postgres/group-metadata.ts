// Classic group membership (storage/group-metadata.ts) on PostgreSQL: one group_metadata row and
// its group_member rows, replaced whole in one transaction, as each rebalance writes them. Only
// the group's coordinator (the broker holding its lease, src/cluster) writes a group's rows.
import type { StoredGroup, StoredGroupMember } from '../group-metadata';
import type { Db } from './db';

export class GroupMetadataStore {
  constructor(private readonly db: Db) {}

  async store(groupId: string, group: StoredGroup | null): Promise<void> {
    await this.db.tx(async (q) => {
      if (group === null) {
        await q.query('DELETE FROM group_metadata WHERE group_id = $1', [groupId]);
        return;
      }
      await q.query(
        `INSERT INTO group_metadata (group_id, protocol_type, generation, protocol_name, leader_id, updated_ms)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (group_id) DO UPDATE SET protocol_type = excluded.protocol_type,
           generation = excluded.generation, protocol_name = excluded.protocol_name,
           leader_id = excluded.leader_id, updated_ms = excluded.updated_ms`,
        [groupId, group.protocolType, group.generationId, group.protocolName, group.leaderId, group.updatedMs],
      );
      await q.query('DELETE FROM group_member WHERE group_id = $1', [groupId]);
      const m = group.members;
      if (m.length === 0) return;
      await q.query(
        `INSERT INTO group_member (group_id, member_id, join_order, group_instance_id, client_id, client_host,
           rebalance_timeout_ms, session_timeout_ms, subscription, assignment)
         SELECT $1, u.* FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[],
           $9::bytea[], $10::bytea[]) AS u`,
        [
          groupId,
          m.map((x) => x.memberId),
          m.map((_, i) => i),
          m.map((x) => x.groupInstanceId),
          m.map((x) => x.clientId),
          m.map((x) => x.clientHost),
          m.map((x) => x.rebalanceTimeoutMs),
          m.map((x) => x.sessionTimeoutMs),
          m.map((x) => x.subscription),
          m.map((x) => x.assignment),
        ],
      );
    });
  }

  async load(groupId: string): Promise<StoredGroup | undefined> {
    const [row] = await this.db.query<{
      protocolType: string | null;
      generationId: number;
      protocolName: string | null;
      leaderId: string | null;
      updatedMs: string;
    }>(
      `SELECT protocol_type AS "protocolType", generation AS "generationId", protocol_name AS "protocolName",
         leader_id AS "leaderId", updated_ms AS "updatedMs" FROM group_metadata WHERE group_id = $1`,
      [groupId],
    );
    if (!row) return undefined;
    const members = await this.db.query<StoredGroupMember>(
      `SELECT member_id AS "memberId", group_instance_id AS "groupInstanceId", client_id AS "clientId",
         client_host AS "clientHost", rebalance_timeout_ms AS "rebalanceTimeoutMs",
         session_timeout_ms AS "sessionTimeoutMs", subscription, assignment
       FROM group_member WHERE group_id = $1 ORDER BY join_order`,
      [groupId],
    );
    return { groupId, ...row, updatedMs: Number(row.updatedMs), members };
  }
}
