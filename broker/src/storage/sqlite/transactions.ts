// Transactions in SQLite (docs/transactions.md): the coordinator's state per transactional id
// (txn, txn_partition, txn_group, txn_offset: Kafka's __transaction_state), each call one SQLite
// transaction. endTransaction writes every marker, the state and the group offsets together, so a
// crash (or a full disk) leaves the old state or the new one, never half a decision. The rules are
// txn-rules.ts', shared with memory://; the partitions' open/aborted transactions are records.ts'.
import type Database from 'better-sqlite3';
import { controlBatch } from '../control-batch';
import { StorageError } from '../storage';
import type {
  CommittedOffset,
  EndTransactionResult,
  EpochBump,
  TransactionInfo,
  TransactionState,
  TxnPartition,
} from '../storage';
import { isLogAppendTime } from '../topic-config';
import { endTxnEpoch, fencedEpoch, initTxnProducer } from '../txn-rules';
import type { Records } from './records';
import type { Topics } from './topics';
import type { Transactor } from './transaction';

type TxnRow = Omit<TransactionInfo, 'partitions' | 'groups'>;

const TXN_COLUMNS = `transactional_id AS transactionalId, producer_id AS producerId, producer_epoch AS producerEpoch,
  last_producer_id AS lastProducerId, last_epoch AS lastProducerEpoch, state, timeout_ms AS timeoutMs,
  started_ms AS startedMs, updated_ms AS updatedMs`;

export class Transactions {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
    private readonly topics: Topics,
    private readonly records: Records,
  ) {
    this.q = {
      get: db.prepare(`SELECT ${TXN_COLUMNS} FROM txn WHERE transactional_id = ?`),
      all: db.prepare(`SELECT ${TXN_COLUMNS} FROM txn ORDER BY transactional_id`),
      upsert: db.prepare(
        `INSERT INTO txn (transactional_id, producer_id, producer_epoch, last_producer_id, last_epoch, state, timeout_ms,
           started_ms, updated_ms) VALUES (@transactionalId, @producerId, @producerEpoch, @lastProducerId,
           @lastProducerEpoch, @state, @timeoutMs, @startedMs, @updatedMs)
         ON CONFLICT DO UPDATE SET producer_id = excluded.producer_id, producer_epoch = excluded.producer_epoch,
           last_producer_id = excluded.last_producer_id, last_epoch = excluded.last_epoch, state = excluded.state,
           timeout_ms = excluded.timeout_ms, started_ms = excluded.started_ms, updated_ms = excluded.updated_ms`,
      ),
      partitions: db.prepare(
        `SELECT t.name AS topic, p.partition_index AS partition FROM txn_partition x
           JOIN partition p ON p.id = x.partition_id JOIN topic t ON t.id = p.topic_id
         WHERE x.transactional_id = ? ORDER BY t.name, p.partition_index`,
      ),
      groups: db.prepare('SELECT group_id FROM txn_group WHERE transactional_id = ? ORDER BY group_id').pluck(),
      // For list(): every id's partitions and groups in one query each, not two per id.
      allPartitions: db.prepare(
        `SELECT x.transactional_id AS id, t.name AS topic, p.partition_index AS partition FROM txn_partition x
           JOIN partition p ON p.id = x.partition_id JOIN topic t ON t.id = p.topic_id
         ORDER BY t.name, p.partition_index`,
      ),
      allGroups: db.prepare('SELECT transactional_id AS id, group_id AS groupId FROM txn_group ORDER BY group_id'),
      addPartition: db.prepare('INSERT OR IGNORE INTO txn_partition (transactional_id, partition_id) VALUES (?, ?)'),
      addGroup: db.prepare('INSERT OR IGNORE INTO txn_group (transactional_id, group_id) VALUES (?, ?)'),
      putOffset: db.prepare(
        `INSERT INTO txn_offset (transactional_id, group_id, topic, partition_index, committed_offset, leader_epoch,
           metadata, commit_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET committed_offset = excluded.committed_offset, leader_epoch = excluded.leader_epoch,
           metadata = excluded.metadata, commit_ms = excluded.commit_ms`,
      ),
      // WHERE true: SQLite's upsert after a SELECT needs it to parse ON CONFLICT.
      commitOffsets: db.prepare(
        `INSERT INTO group_offset (group_id, topic, partition_index, committed_offset, leader_epoch, metadata, commit_ms)
         SELECT group_id, topic, partition_index, committed_offset, leader_epoch, metadata, ? FROM txn_offset
         WHERE transactional_id = ? AND true
         ON CONFLICT DO UPDATE SET committed_offset = excluded.committed_offset, leader_epoch = excluded.leader_epoch,
           metadata = excluded.metadata, commit_ms = excluded.commit_ms`,
      ),
      pending: db.prepare(
        'SELECT DISTINCT topic, partition_index AS partition FROM txn_offset WHERE group_id = ? ORDER BY topic, partition_index',
      ),
      clear: [
        'DELETE FROM txn_partition WHERE transactional_id = ?',
        'DELETE FROM txn_group WHERE transactional_id = ?',
        'DELETE FROM txn_offset WHERE transactional_id = ?',
      ].map((sql) => db.prepare(sql)),
      deleteTxn: db.prepare('DELETE FROM txn WHERE transactional_id = ?'),
      // Producer ids come from the idempotent producers' allocator (producer.transactional_id UNIQUE).
      producerOf: db.prepare(
        'SELECT producer_id AS producerId, epoch AS producerEpoch FROM producer WHERE transactional_id = ?',
      ),
      insertProducer: db.prepare('INSERT INTO producer (transactional_id, epoch, updated_ms) VALUES (?, 0, ?)'),
      setProducerEpoch: db.prepare('UPDATE producer SET epoch = ?, updated_ms = ? WHERE producer_id = ?'),
      releaseProducer: db.prepare('UPDATE producer SET transactional_id = NULL WHERE transactional_id = ?'),
    };
  }

  list(): TransactionInfo[] {
    const partitions = new Map<string, TxnPartition[]>();
    for (const r of this.q.allPartitions.all() as ({ id: string } & TxnPartition)[]) {
      const list = partitions.get(r.id) ?? [];
      list.push({ topic: r.topic, partition: r.partition });
      partitions.set(r.id, list);
    }
    const groups = new Map<string, string[]>();
    for (const r of this.q.allGroups.all() as { id: string; groupId: string }[]) {
      const list = groups.get(r.id) ?? [];
      list.push(r.groupId);
      groups.set(r.id, list);
    }
    return (this.q.all.all() as TxnRow[]).map((row) => ({
      ...row,
      partitions: partitions.get(row.transactionalId) ?? [],
      groups: groups.get(row.transactionalId) ?? [],
    }));
  }

  get(transactionalId: string): TransactionInfo | undefined {
    const row = this.row(transactionalId);
    return row && this.describe(row);
  }

  init(transactionalId: string, timeoutMs: number, nowMs: number): TransactionInfo {
    return this.tx.run(() => {
      const t = this.row(transactionalId);
      const current =
        t ?? (this.q.producerOf.get(transactionalId) as { producerId: number; producerEpoch: number } | undefined);
      const change = initTxnProducer(current);
      if (t && t.state === 'Ongoing') {
        // Fencing abort with the new epoch (Kafka's prepareFenceProducerEpoch), before a new id if any.
        this.end(t, false, nowMs, change.newProducerId ? fencedEpoch(t.producerEpoch) : change.producerEpoch);
      }
      let producerId = change.producerId;
      if (change.newProducerId) {
        this.q.releaseProducer.run(transactionalId);
        producerId = Number(this.q.insertProducer.run(transactionalId, nowMs).lastInsertRowid);
      } else {
        this.q.setProducerEpoch.run(change.producerEpoch, nowMs, producerId);
      }
      const row: TxnRow = {
        transactionalId,
        producerId,
        producerEpoch: change.producerEpoch,
        lastProducerId: change.lastProducerId,
        lastProducerEpoch: change.lastProducerEpoch,
        state: 'Empty',
        timeoutMs,
        startedMs: -1,
        updatedMs: nowMs,
      };
      this.q.upsert.run(row);
      return this.describe(row);
    });
  }

  add(transactionalId: string, partitions: readonly TxnPartition[], groups: readonly string[], nowMs: number) {
    return this.tx.run(() => {
      const t = this.mustGet(transactionalId);
      for (const p of partitions) {
        const entry = this.topics.partition(p.topic, p.partition);
        if (!entry)
          throw new StorageError(
            `cannot add unknown partition ${p.topic}-${p.partition} to transaction "${transactionalId}"`,
          );
        this.q.addPartition.run(transactionalId, entry.id);
      }
      for (const g of groups) this.q.addGroup.run(transactionalId, g);
      const row: TxnRow = {
        ...t,
        state: 'Ongoing',
        startedMs: t.state === 'Ongoing' ? t.startedMs : nowMs,
        updatedMs: nowMs,
      };
      this.q.upsert.run(row);
      return this.describe(row);
    });
  }

  commitOffsets(
    transactionalId: string,
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): void {
    this.tx.run(() => {
      this.mustGet(transactionalId);
      for (const o of offsets)
        this.q.putOffset.run(
          transactionalId,
          groupId,
          o.topic,
          o.partition,
          o.offset,
          o.leaderEpoch,
          o.metadata,
          nowMs,
        );
    });
  }

  endTransaction(
    transactionalId: string,
    commit: boolean,
    nowMs: number,
    bump: EpochBump = 'none',
  ): EndTransactionResult {
    return this.tx.run(() => {
      const t = this.mustGet(transactionalId);
      const { markerEpoch, newProducerId } = endTxnEpoch(t.producerEpoch, bump);
      const last = { lastProducerId: t.producerId, lastProducerEpoch: t.producerEpoch };
      if (markerEpoch !== t.producerEpoch) {
        Object.assign(t, { ...last, producerEpoch: markerEpoch });
        this.q.setProducerEpoch.run(markerEpoch, nowMs, t.producerId);
      }
      const markedPartitions = this.end(t, commit, nowMs, markerEpoch);
      if (newProducerId) {
        // Transaction version 2's epoch overflow: the markers went out with the old id, the
        // producer goes on with a new one (EndTxn answers it).
        this.q.releaseProducer.run(transactionalId);
        const producerId = Number(this.q.insertProducer.run(transactionalId, nowMs).lastInsertRowid);
        Object.assign(t, { ...last, producerId, producerEpoch: 0 });
        this.q.upsert.run(t);
      }
      return { info: this.describe(t), markedPartitions };
    });
  }

  pendingOffsets(groupId: string): TxnPartition[] {
    return this.q.pending.all(groupId) as TxnPartition[];
  }

  delete(transactionalId: string): boolean {
    return this.tx.run(() => {
      const t = this.row(transactionalId);
      if (!t || t.state === 'Ongoing') return false;
      for (const stmt of this.q.clear) stmt.run(transactionalId);
      this.q.deleteTxn.run(transactionalId);
      this.q.releaseProducer.run(transactionalId); // a later InitProducerId gets a new producer id
      return true;
    });
  }

  /** Markers, offsets and the new state (stored; `t` updated); the caller settled the epoch. */
  private end(t: TxnRow, commit: boolean, nowMs: number, epoch: number): TxnPartition[] {
    const marked = this.q.partitions.all(t.transactionalId) as TxnPartition[];
    for (const p of marked) {
      const entry = this.topics.partition(p.topic, p.partition)!; // rows of deleted topics are gone
      const logAppendTime = isLogAppendTime(this.topics.configs(p.topic) ?? {});
      const row = controlBatch(t.producerId, epoch, commit, entry.highWatermark, nowMs, logAppendTime);
      this.records.appendMarker(entry, row, commit);
    }
    if (commit) this.q.commitOffsets.run(nowMs, t.transactionalId);
    for (const stmt of this.q.clear) stmt.run(t.transactionalId);
    t.state = commit ? 'CompleteCommit' : 'CompleteAbort';
    t.updatedMs = nowMs;
    this.q.upsert.run(t);
    return marked;
  }

  private row(transactionalId: string): TxnRow | undefined {
    return this.q.get.get(transactionalId) as TxnRow | undefined;
  }

  private mustGet(transactionalId: string): TxnRow {
    const t = this.row(transactionalId);
    if (!t) throw new StorageError(`unknown transactional id "${transactionalId}": InitProducerId first`);
    return t;
  }

  private describe(row: TxnRow): TransactionInfo {
    return {
      ...row,
      state: row.state as TransactionState,
      partitions: this.q.partitions.all(row.transactionalId) as TxnPartition[],
      groups: this.q.groups.all(row.transactionalId) as string[],
    };
  }
}
