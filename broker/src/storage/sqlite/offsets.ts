// Consumer group committed offsets (OffsetCommit / OffsetFetch / OffsetDelete), keyed by topic
// name as the protocol is. Not cached: groups read them on join, not per record.
import type Database from 'better-sqlite3';
import type { CommittedOffset } from '../storage';
import type { Transactor } from './transaction';

const COLUMNS = `topic, partition_index AS partition, committed_offset AS offset, leader_epoch AS leaderEpoch,
  metadata, commit_ms AS commitTimestampMs`;

export class GroupOffsets {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      upsert: db.prepare(
        `INSERT INTO group_offset (group_id, topic, partition_index, committed_offset, leader_epoch, metadata, commit_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET committed_offset = excluded.committed_offset, leader_epoch = excluded.leader_epoch,
           metadata = excluded.metadata, commit_ms = excluded.commit_ms`,
      ),
      fetch: db.prepare(`SELECT ${COLUMNS} FROM group_offset WHERE group_id = ? ORDER BY topic, partition_index`),
      deleteOne: db.prepare('DELETE FROM group_offset WHERE group_id = ? AND topic = ? AND partition_index = ?'),
      deleteGroup: db.prepare('DELETE FROM group_offset WHERE group_id = ?'),
      groups: db.prepare('SELECT DISTINCT group_id FROM group_offset ORDER BY group_id').pluck(),
    };
  }

  commit(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void {
    this.tx.run(() => {
      for (const o of offsets)
        this.q.upsert.run(groupId, o.topic, o.partition, o.offset, o.leaderEpoch, o.metadata, nowMs);
    });
  }

  fetch(groupId: string): CommittedOffset[] {
    return this.q.fetch.all(groupId) as CommittedOffset[];
  }

  delete(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void {
    this.tx.run(() => {
      if (partitions === undefined) this.q.deleteGroup.run(groupId);
      else for (const p of partitions) this.q.deleteOne.run(groupId, p.topic, p.partition);
    });
  }

  groups(): string[] {
    return this.q.groups.all() as string[];
  }
}
