// Share-partition delivery state (storage/share-store.ts) on SQLite: one row per (group, topic id,
// partition), replaced whole after each change.
import type Database from 'better-sqlite3';
import {
  decodeShareRecords,
  encodeShareRecords,
  type StoredSharePartition,
  type StoredSharePartitionOfGroup,
} from '../share-store';

interface Row {
  startOffset: number;
  endOffset: number;
  records: string;
}

export class SharePartitionStore {
  private readonly q;

  constructor(db: Database.Database) {
    this.q = {
      upsert: db.prepare(
        `INSERT INTO share_partition_state (group_id, topic_id, partition, start_offset, end_offset, records)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET start_offset = excluded.start_offset, end_offset = excluded.end_offset,
           records = excluded.records`,
      ),
      remove: db.prepare('DELETE FROM share_partition_state WHERE group_id = ? AND topic_id = ? AND partition = ?'),
      load: db.prepare(
        `SELECT start_offset AS startOffset, end_offset AS endOffset, records FROM share_partition_state
         WHERE group_id = ? AND topic_id = ? AND partition = ?`,
      ),
      ofGroup: db.prepare(
        `SELECT topic_id AS topicId, partition, start_offset AS startOffset, end_offset AS endOffset, records
         FROM share_partition_state WHERE group_id = ? ORDER BY topic_id, partition`,
      ),
    };
  }

  store(groupId: string, topicId: string, partition: number, state: StoredSharePartition | null): void {
    if (state === null) {
      this.q.remove.run(groupId, topicId, partition);
      return;
    }
    this.q.upsert.run(
      groupId,
      topicId,
      partition,
      state.startOffset,
      state.endOffset,
      encodeShareRecords(state.records),
    );
  }

  load(groupId: string, topicId: string, partition: number): StoredSharePartition | undefined {
    const row = this.q.load.get(groupId, topicId, partition) as Row | undefined;
    if (!row) return undefined;
    return { startOffset: row.startOffset, endOffset: row.endOffset, records: decodeShareRecords(row.records) };
  }

  ofGroup(groupId: string): StoredSharePartitionOfGroup[] {
    const rows = this.q.ofGroup.all(groupId) as Array<Row & { topicId: string; partition: number }>;
    return rows.map((r) => ({
      topicId: r.topicId,
      partition: r.partition,
      state: { startOffset: r.startOffset, endOffset: r.endOffset, records: decodeShareRecords(r.records) },
    }));
  }
}
