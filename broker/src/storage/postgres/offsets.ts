// Consumer group committed offsets (OffsetCommit / OffsetFetch / OffsetDelete) on PostgreSQL, keyed
// by topic name as the protocol is. Text orders use COLLATE "C" (byte order), as SQLite's do.
import type { CommittedOffset } from '../storage';
import type { Db } from './db';

const COLUMNS = `topic, partition_index AS partition, committed_offset AS offset, leader_epoch AS "leaderEpoch",
  metadata, commit_ms AS "commitTimestampMs"`;

export class GroupOffsets {
  constructor(private readonly db: Db) {}

  async commit(
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): Promise<void> {
    if (offsets.length === 0) return;
    // One statement: all of a commit or none. A partition named twice: the last one wins, as in sqlite.
    const last = new Map<string, Omit<CommittedOffset, 'commitTimestampMs'>>();
    for (const o of offsets) last.set(`${o.topic}\0${o.partition}`, o);
    const list = [...last.values()];
    await this.db.query(
      `INSERT INTO group_offset (group_id, topic, partition_index, committed_offset, leader_epoch, metadata, commit_ms)
       SELECT $1, u.topic, u.idx, u.off, u.epoch, u.meta, $7
       FROM unnest($2::text[], $3::int[], $4::bigint[], $5::int[], $6::text[]) AS u(topic, idx, off, epoch, meta)
       ON CONFLICT (group_id, topic, partition_index) DO UPDATE SET committed_offset = excluded.committed_offset,
         leader_epoch = excluded.leader_epoch, metadata = excluded.metadata, commit_ms = excluded.commit_ms`,
      [
        groupId,
        list.map((o) => o.topic),
        list.map((o) => o.partition),
        list.map((o) => o.offset),
        list.map((o) => o.leaderEpoch),
        list.map((o) => o.metadata),
        nowMs,
      ],
    );
  }

  async fetch(groupId: string): Promise<CommittedOffset[]> {
    return this.db.query<CommittedOffset>(
      `SELECT ${COLUMNS} FROM group_offset WHERE group_id = $1 ORDER BY topic COLLATE "C", partition_index`,
      [groupId],
    );
  }

  async delete(groupId: string, partitions?: readonly { topic: string; partition: number }[]): Promise<void> {
    if (partitions === undefined) {
      await this.db.query('DELETE FROM group_offset WHERE group_id = $1', [groupId]);
      return;
    }
    if (partitions.length === 0) return;
    await this.db.query(
      `DELETE FROM group_offset g USING unnest($2::text[], $3::int[]) AS u(topic, idx)
       WHERE g.group_id = $1 AND g.topic = u.topic AND g.partition_index = u.idx`,
      [groupId, partitions.map((p) => p.topic), partitions.map((p) => p.partition)],
    );
  }

  async groups(): Promise<string[]> {
    const rows = await this.db.query<{ group_id: string }>(
      'SELECT group_id FROM group_offset GROUP BY group_id ORDER BY group_id COLLATE "C"',
    );
    return rows.map((r) => r.group_id);
  }
}
