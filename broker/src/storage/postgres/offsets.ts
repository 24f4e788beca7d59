// Consumer group committed offsets (OffsetCommit / OffsetFetch / OffsetDelete) on PostgreSQL, keyed
// by topic name as the protocol is. Text orders use COLLATE "C" (byte order), as SQLite's do.
import type { CommittedOffset } from '../storage';
import type { Db } from './db';

const COLUMNS = `topic, partition_index AS partition, committed_offset AS offset, leader_epoch AS "leaderEpoch",
  metadata, commit_ms AS "commitTimestampMs"`;

/**
 * The one order group offset rows are locked and written in, by every writer (OffsetCommit, EndTxn,
 * OffsetDelete, topic deletion): byte order whatever the database's collation. Columns of `g`.
 */
export const OFFSET_ORDER = 'g.group_id COLLATE "C", g.topic COLLATE "C", g.partition_index';

/** The same for pending transactional offsets (TxnOffsetCommit, topic deletion). Columns of `g`. */
export const TXN_OFFSET_ORDER = `g.transactional_id COLLATE "C", ${OFFSET_ORDER}`;

export class GroupOffsets {
  constructor(private readonly db: Db) {}

  async commit(
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): Promise<void> {
    if (offsets.length === 0) return;
    // One statement: all of a commit or none. A partition named twice: the last one wins, as in sqlite.
    // Rows in OFFSET_ORDER, as EndTxn writes them: two writers upserting the same rows in different
    // orders can deadlock (40P01; docs/postgres.md "Lock order").
    const last = new Map<string, Omit<CommittedOffset, 'commitTimestampMs'>>();
    for (const o of offsets) last.set(`${o.topic}\0${o.partition}`, o);
    const list = [...last.values()];
    await this.db.query(
      `INSERT INTO group_offset (group_id, topic, partition_index, committed_offset, leader_epoch, metadata, commit_ms)
       SELECT $1, u.topic, u.idx, u.off, u.epoch, u.meta, $7
       FROM unnest($2::text[], $3::int[], $4::bigint[], $5::int[], $6::text[]) AS u(topic, idx, off, epoch, meta)
       ORDER BY u.topic COLLATE "C", u.idx
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
    if (partitions?.length === 0) return;
    // A DELETE locks rows in its plan's order: lock them in OFFSET_ORDER first (as commits write).
    const which =
      partitions === undefined
        ? { where: 'g.group_id = $1', values: [groupId] }
        : {
            where: `g.group_id = $1 AND (g.topic, g.partition_index) IN (SELECT * FROM unnest($2::text[], $3::int[]))`,
            values: [groupId, partitions.map((p) => p.topic), partitions.map((p) => p.partition)],
          };
    await this.db.tx(async (q) => {
      await q.query(
        `SELECT 1 FROM group_offset g WHERE ${which.where} ORDER BY ${OFFSET_ORDER} FOR UPDATE`,
        which.values,
      );
      await q.query(`DELETE FROM group_offset g WHERE ${which.where}`, which.values);
    });
  }

  async groups(): Promise<string[]> {
    const rows = await this.db.query<{ group_id: string }>(
      'SELECT group_id FROM group_offset GROUP BY group_id ORDER BY group_id COLLATE "C"',
    );
    return rows.map((r) => r.group_id);
  }
}
