// Share-partition delivery state (storage/share-store.ts) on PostgreSQL: one row per (group, topic
// id, partition), replaced whole after each change.
import {
  decodeShareRecords,
  encodeShareRecords,
  type StoredSharePartition,
  type StoredSharePartitionOfGroup,
} from '../share-store';
import type { Db } from './db';

export class SharePartitionStore {
  constructor(private readonly db: Db) {}

  async store(groupId: string, topicId: string, partition: number, state: StoredSharePartition | null): Promise<void> {
    if (state === null) {
      await this.db.query(
        'DELETE FROM share_partition_state WHERE group_id = $1 AND topic_id = $2 AND partition = $3',
        [groupId, topicId, partition],
      );
      return;
    }
    await this.db.query(
      `INSERT INTO share_partition_state (group_id, topic_id, partition, start_offset, end_offset, records)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (group_id, topic_id, partition) DO UPDATE SET start_offset = excluded.start_offset,
         end_offset = excluded.end_offset, records = excluded.records`,
      [groupId, topicId, partition, state.startOffset, state.endOffset, encodeShareRecords(state.records)],
    );
  }

  async load(groupId: string, topicId: string, partition: number): Promise<StoredSharePartition | undefined> {
    const [row] = await this.db.query<{ start_offset: string; end_offset: string; records: string }>(
      `SELECT start_offset, end_offset, records FROM share_partition_state
       WHERE group_id = $1 AND topic_id = $2 AND partition = $3`,
      [groupId, topicId, partition],
    );
    if (!row) return undefined;
    return {
      startOffset: Number(row.start_offset),
      endOffset: Number(row.end_offset),
      records: decodeShareRecords(row.records),
    };
  }

  async ofGroup(groupId: string): Promise<StoredSharePartitionOfGroup[]> {
    const rows = await this.db.query<{
      topic_id: string;
      partition: number;
      start_offset: string;
      end_offset: string;
      records: string;
    }>(
      `SELECT topic_id, partition, start_offset, end_offset, records FROM share_partition_state
       WHERE group_id = $1 ORDER BY topic_id, partition`,
      [groupId],
    );
    return rows.map((r) => ({
      topicId: r.topic_id,
      partition: Number(r.partition),
      state: {
        startOffset: Number(r.start_offset),
        endOffset: Number(r.end_offset),
        records: decodeShareRecords(r.records),
      },
    }));
  }
}
