// Transactions on PostgreSQL (KIP-98, docs/transactions.md): the coordinator's state per
// transactional id (txn, txn_partition, txn_group, txn_offset), each call one PostgreSQL
// transaction, as sqlite's transactions.ts. Every call on an id first takes a transaction-level
// advisory lock on it and reads its row FOR UPDATE: two brokers acting on one id (a coordinator
// moving) take turns, and a new id is inserted once; InitProducerId's common case is a single
// UPDATE (bumpEpoch), ordered with the others by the row lock. endTransaction writes every marker, the state and the group offsets in one
// transaction, locking the partitions in id order as appends do (log-writes.ts), so markers and
// appends cannot deadlock and the markers' NOTIFY reaches the other brokers at commit. The
// transactional checks of append are append.ts' (one statement per append for every producer).
import { StorageError } from '../storage';
import type { CommittedOffset, EndTransactionResult, EpochBump, TransactionInfo, TxnPartition } from '../storage';
import { MAX_PRODUCER_EPOCH } from '../log-rules';
import { DEFAULT_TXN_TIMEOUT_MS, endTxnEpoch, fencedEpoch, initTxnProducer } from '../txn-rules';
import type { Db, Queryable } from './db';
import { lockPartitions } from './log-writes';
import { OFFSET_ORDER, TXN_OFFSET_ORDER } from './offsets';
import { writeMarkers } from './txn-markers';

type TxnRow = Omit<TransactionInfo, 'partitions' | 'groups'>;

const TXN_COLUMNS = `transactional_id AS "transactionalId", producer_id AS "producerId", producer_epoch AS "producerEpoch",
  last_producer_id AS "lastProducerId", last_epoch AS "lastProducerEpoch", state, timeout_ms AS "timeoutMs",
  started_ms AS "startedMs", updated_ms AS "updatedMs"`;

/** The advisory lock namespace (first int4 key) of transactional ids; the second is hashtext(id). */
const TXN_LOCK_SPACE = 0x74786e; // "txn"

// Byte order (COLLATE "C") everywhere, as SQLite and the JS sorts order text.
const PARTITIONS_OF = `SELECT t.name AS topic, p.partition_index AS partition FROM txn_partition x
  JOIN partition p ON p.id = x.partition_id JOIN topic t ON t.id = p.topic_id
  WHERE x.transactional_id = $1 ORDER BY t.name COLLATE "C", p.partition_index`;

export class PgTransactions {
  constructor(private readonly db: Db) {}

  async list(): Promise<TransactionInfo[]> {
    const [rows, parts, groups] = await Promise.all([
      this.db.query<TxnRow>(`SELECT ${TXN_COLUMNS} FROM txn ORDER BY transactional_id COLLATE "C"`),
      this.db.query<{ id: string } & TxnPartition>(
        `SELECT x.transactional_id AS id, t.name AS topic, p.partition_index AS partition FROM txn_partition x
           JOIN partition p ON p.id = x.partition_id JOIN topic t ON t.id = p.topic_id
         ORDER BY t.name COLLATE "C", p.partition_index`,
      ),
      this.db.query<{ id: string; groupId: string }>(
        'SELECT transactional_id AS id, group_id AS "groupId" FROM txn_group ORDER BY group_id COLLATE "C"',
      ),
    ]);
    const partitions = groupBy(
      parts,
      (r) => r.id,
      (r) => ({ topic: r.topic, partition: r.partition }),
    );
    const groupIds = groupBy(
      groups,
      (r) => r.id,
      (r) => r.groupId,
    );
    return rows.map((row) => ({
      ...row,
      partitions: partitions.get(row.transactionalId) ?? [],
      groups: groupIds.get(row.transactionalId) ?? [],
    }));
  }

  async get(transactionalId: string): Promise<TransactionInfo | undefined> {
    const row = await this.row(this.db, transactionalId);
    return row && this.describe(this.db, row);
  }

  /** `timeoutMs` undefined: the stored one kept (InitProducerId without a timeout), else the default. */
  async init(transactionalId: string, timeoutMs: number | undefined, nowMs: number): Promise<TransactionInfo> {
    const bumped = await this.bumpEpoch(transactionalId, timeoutMs, nowMs);
    if (bumped) return { ...bumped, partitions: [], groups: [] }; // not Ongoing: none added
    return this.db.tx(async (q) => {
      await lockId(q, transactionalId);
      const t = await this.row(q, transactionalId);
      const [producer] = t
        ? []
        : await q.query<{ producerId: number; producerEpoch: number }>(
            'SELECT producer_id AS "producerId", epoch AS "producerEpoch" FROM producer WHERE transactional_id = $1',
            [transactionalId],
          );
      const change = initTxnProducer(t ?? producer);
      if (t && t.state === 'Ongoing') {
        // Fencing abort with the new epoch (Kafka's prepareFenceProducerEpoch), before a new id if any.
        await this.end(q, t, false, nowMs, change.newProducerId ? fencedEpoch(t.producerEpoch) : change.producerEpoch);
      }
      let producerId = change.producerId;
      if (change.newProducerId) {
        producerId = await newTxnProducer(q, transactionalId, nowMs);
      } else {
        await setProducerEpoch(q, producerId, change.producerEpoch, nowMs);
      }
      const row: TxnRow = {
        transactionalId,
        producerId,
        producerEpoch: change.producerEpoch,
        lastProducerId: change.lastProducerId,
        lastProducerEpoch: change.lastProducerEpoch,
        state: 'Empty',
        timeoutMs: timeoutMs ?? t?.timeoutMs ?? DEFAULT_TXN_TIMEOUT_MS,
        startedMs: -1,
        updatedMs: nowMs,
      };
      await upsert(q, row);
      return { ...row, partitions: [], groups: [] }; // Empty: none added yet
    });
  }

  async add(
    transactionalId: string,
    partitions: readonly TxnPartition[],
    groups: readonly string[],
    nowMs: number,
  ): Promise<TransactionInfo> {
    return this.db.tx(async (q) => {
      const t = await this.mustGet(q, transactionalId);
      if (partitions.length > 0) {
        const names = partitions.map((p) => p.topic);
        const indexes = partitions.map((p) => p.partition);
        const [known] = await q.query<{ n: number }>(
          `SELECT count(*) AS n FROM partition p JOIN topic t ON t.id = p.topic_id
           JOIN (SELECT DISTINCT * FROM unnest($1::text[], $2::int[])) AS u(name, idx)
             ON t.name = u.name AND p.partition_index = u.idx`,
          [names, indexes],
        );
        if (known!.n !== new Set(partitions.map((p) => `${p.topic}\0${p.partition}`)).size)
          throw new StorageError(
            `cannot add unknown partitions (of ${partitions.map((p) => `${p.topic}-${p.partition}`).join(', ')}) to transaction "${transactionalId}"`,
          );
        // In partition id order: each row's foreign key check share-locks its partition, and appends
        // lock partitions in id order too, so the two cannot deadlock.
        await q.query(
          `INSERT INTO txn_partition (transactional_id, partition_id)
           SELECT DISTINCT $1, p.id FROM partition p JOIN topic t ON t.id = p.topic_id
           JOIN unnest($2::text[], $3::int[]) AS u(name, idx) ON t.name = u.name AND p.partition_index = u.idx
           ORDER BY p.id ON CONFLICT DO NOTHING`,
          [transactionalId, names, indexes],
        );
      }
      if (groups.length > 0)
        await q.query(
          'INSERT INTO txn_group (transactional_id, group_id) SELECT $1, g FROM unnest($2::text[]) AS g ON CONFLICT DO NOTHING',
          [transactionalId, [...groups]],
        );
      const row: TxnRow = {
        ...t,
        state: 'Ongoing',
        startedMs: t.state === 'Ongoing' ? t.startedMs : nowMs,
        updatedMs: nowMs,
      };
      await upsert(q, row);
      return this.describe(q, row);
    });
  }

  async commitOffsets(
    transactionalId: string,
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): Promise<void> {
    await this.db.tx(async (q) => {
      await this.mustGet(q, transactionalId);
      if (offsets.length === 0) return;
      // A partition named twice: the last one wins, as in sqlite. One statement, its rows in
      // TXN_OFFSET_ORDER (docs/postgres.md "Lock order"): topic deletion locks them in that order too.
      const last = new Map<string, Omit<CommittedOffset, 'commitTimestampMs'>>();
      for (const o of offsets) last.set(`${o.topic}\0${o.partition}`, o);
      const list = [...last.values()];
      await q.query(
        `INSERT INTO txn_offset (transactional_id, group_id, topic, partition_index, committed_offset, leader_epoch,
           metadata, commit_ms)
         SELECT $1, $2, u.topic, u.idx, u.off, u.epoch, u.meta, $8
         FROM unnest($3::text[], $4::int[], $5::bigint[], $6::int[], $7::text[]) AS u(topic, idx, off, epoch, meta)
         ORDER BY u.topic COLLATE "C", u.idx
         ON CONFLICT (transactional_id, group_id, topic, partition_index) DO UPDATE SET
           committed_offset = excluded.committed_offset, leader_epoch = excluded.leader_epoch,
           metadata = excluded.metadata, commit_ms = excluded.commit_ms`,
        [
          transactionalId,
          groupId,
          list.map((o) => o.topic),
          list.map((o) => o.partition),
          list.map((o) => o.offset),
          list.map((o) => o.leaderEpoch),
          list.map((o) => o.metadata),
          nowMs,
        ],
      );
    });
  }

  async endTransaction(
    transactionalId: string,
    commit: boolean,
    nowMs: number,
    bump: EpochBump = 'none',
  ): Promise<EndTransactionResult> {
    return this.db.tx(async (q) => {
      const t = await this.mustGet(q, transactionalId);
      const { markerEpoch, newProducerId } = endTxnEpoch(t.producerEpoch, bump);
      const last = { lastProducerId: t.producerId, lastProducerEpoch: t.producerEpoch };
      if (markerEpoch !== t.producerEpoch) {
        Object.assign(t, { ...last, producerEpoch: markerEpoch });
        await setProducerEpoch(q, t.producerId, markerEpoch, nowMs);
      }
      const markedPartitions = await this.end(q, t, commit, nowMs, markerEpoch);
      if (newProducerId) {
        // Transaction version 2's epoch overflow: the markers went out with the old id, the
        // producer goes on with a new one (EndTxn answers it).
        Object.assign(t, { ...last, producerId: await newTxnProducer(q, transactionalId, nowMs), producerEpoch: 0 });
        await upsert(q, t);
      }
      return { info: { ...t, partitions: [], groups: [] }, markedPartitions }; // end() removed them
    });
  }

  async pendingOffsets(groupId: string): Promise<TxnPartition[]> {
    return this.db.query<TxnPartition>(
      `SELECT topic, partition_index AS partition FROM txn_offset WHERE group_id = $1
       GROUP BY topic, partition_index ORDER BY topic COLLATE "C", partition_index`,
      [groupId],
    );
  }

  async delete(transactionalId: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      await lockId(q, transactionalId);
      const t = await this.row(q, transactionalId);
      if (!t || t.state === 'Ongoing') return false;
      await q.query('DELETE FROM txn WHERE transactional_id = $1', [transactionalId]); // cascades
      // A later InitProducerId gets a new producer id.
      await q.query('UPDATE producer SET transactional_id = NULL WHERE transactional_id = $1', [transactionalId]);
      return true;
    });
  }

  /**
   * Markers into every partition of the transaction (locked in id order, as appends lock), the
   * partitions' open transactions ended (aborted ranges recorded), offsets, the new state; `t` updated.
   */
  private async end(q: Queryable, t: TxnRow, commit: boolean, nowMs: number, epoch: number): Promise<TxnPartition[]> {
    const marked = await q.query<TxnPartition & { logAppendTime: string | null }>(
      `SELECT t.name AS topic, p.partition_index AS partition,
         (SELECT c.value FROM topic_config c WHERE c.topic_id = t.id AND c.name = 'message.timestamp.type') AS "logAppendTime"
       FROM txn_partition x JOIN partition p ON p.id = x.partition_id JOIN topic t ON t.id = p.topic_id
       WHERE x.transactional_id = $1 ORDER BY t.name COLLATE "C", p.partition_index`,
      [t.transactionalId],
    );
    const locked = [...(await lockPartitions(q, marked)).values()];
    if (locked.length > 0) await writeMarkers(q, locked, marked, t.producerId, epoch, commit, nowMs);
    // In OFFSET_ORDER, as OffsetCommit writes: two orders over the same rows could deadlock.
    if (commit)
      await q.query(
        `INSERT INTO group_offset (group_id, topic, partition_index, committed_offset, leader_epoch, metadata, commit_ms)
         SELECT group_id, topic, partition_index, committed_offset, leader_epoch, metadata, $2 FROM txn_offset g
         WHERE transactional_id = $1 ORDER BY ${OFFSET_ORDER}
         ON CONFLICT (group_id, topic, partition_index) DO UPDATE SET committed_offset = excluded.committed_offset,
           leader_epoch = excluded.leader_epoch, metadata = excluded.metadata, commit_ms = excluded.commit_ms`,
        [t.transactionalId, nowMs],
      );
    // The DELETE below takes them in its plan's order; topic deletion locks them in TXN_OFFSET_ORDER.
    await q.query(`SELECT 1 FROM txn_offset g WHERE transactional_id = $1 ORDER BY ${TXN_OFFSET_ORDER} FOR UPDATE`, [
      t.transactionalId,
    ]);
    await q.query(
      `WITH p AS (DELETE FROM txn_partition WHERE transactional_id = $1), g AS (DELETE FROM txn_group WHERE transactional_id = $1)
       DELETE FROM txn_offset WHERE transactional_id = $1`,
      [t.transactionalId],
    );
    t.state = commit ? 'CompleteCommit' : 'CompleteAbort';
    t.updatedMs = nowMs;
    await upsert(q, t);
    // A partition whose topic was deleted since the read above has left the transaction: no marker.
    const lockedKeys = new Set(locked.map((p) => `${p.topic}\0${p.partition}`));
    return marked
      .filter((m) => lockedKeys.has(`${m.topic}\0${m.partition}`))
      .map(({ topic, partition }) => ({ topic, partition }));
  }

  /** The id's row; inside a transaction also row-locked, so bumpEpoch waits for the transaction. */
  private async row(q: Queryable, transactionalId: string): Promise<TxnRow | undefined> {
    const lock = q === this.db ? '' : ' FOR UPDATE';
    const [row] = await q.query<TxnRow>(`SELECT ${TXN_COLUMNS} FROM txn WHERE transactional_id = $1${lock}`, [
      transactionalId,
    ]);
    return row;
  }

  /**
   * InitProducerId's common case in one statement (no BEGIN/COMMIT): an id not in a transaction
   * whose epoch can go up by one. The UPDATE's row lock orders it with the other calls on the id
   * (which read the row FOR UPDATE). Undefined: the general case applies.
   */
  private async bumpEpoch(transactionalId: string, timeoutMs: number | undefined, nowMs: number) {
    const [row] = await this.db.query<TxnRow>(
      `WITH t AS (
         UPDATE txn SET last_producer_id = producer_id, last_epoch = producer_epoch, producer_epoch = producer_epoch + 1,
           state = 'Empty', timeout_ms = coalesce($2, timeout_ms), started_ms = -1, updated_ms = $3
         WHERE transactional_id = $1 AND state <> 'Ongoing' AND producer_epoch + 1 < $4
         RETURNING *
       ), p AS (UPDATE producer SET epoch = t.producer_epoch, updated_ms = $3 FROM t WHERE producer.producer_id = t.producer_id)
       SELECT ${TXN_COLUMNS} FROM t`,
      [transactionalId, timeoutMs ?? null, nowMs, MAX_PRODUCER_EPOCH],
    );
    return row;
  }

  /** Locks the id for this transaction and reads it; StorageError if unknown (the coordinator checks first). */
  private async mustGet(q: Queryable, transactionalId: string): Promise<TxnRow> {
    await lockId(q, transactionalId);
    const t = await this.row(q, transactionalId);
    if (!t) throw new StorageError(`unknown transactional id "${transactionalId}": InitProducerId first`);
    return t;
  }

  private async describe(q: Queryable, row: TxnRow): Promise<TransactionInfo> {
    const partitions = await q.query<TxnPartition>(PARTITIONS_OF, [row.transactionalId]);
    const groups = await q.query<{ group_id: string }>(
      'SELECT group_id FROM txn_group WHERE transactional_id = $1 ORDER BY group_id COLLATE "C"',
      [row.transactionalId],
    );
    return { ...row, partitions, groups: groups.map((g) => g.group_id) };
  }
}

function lockId(q: Queryable, transactionalId: string): Promise<unknown> {
  return q.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TXN_LOCK_SPACE, transactionalId]);
}

/** A new producer id (epoch 0) for the transactional id; its previous one is released. */
async function newTxnProducer(q: Queryable, transactionalId: string, nowMs: number): Promise<number> {
  await q.query('UPDATE producer SET transactional_id = NULL WHERE transactional_id = $1', [transactionalId]);
  const [created] = await q.query<{ producer_id: number }>(
    'INSERT INTO producer (transactional_id, epoch, updated_ms) VALUES ($1, 0, $2) RETURNING producer_id',
    [transactionalId, nowMs],
  );
  return created!.producer_id;
}

function setProducerEpoch(q: Queryable, producerId: number, epoch: number, nowMs: number): Promise<unknown> {
  return q.query('UPDATE producer SET epoch = $1, updated_ms = $2 WHERE producer_id = $3', [epoch, nowMs, producerId]);
}

function upsert(q: Queryable, r: TxnRow): Promise<unknown> {
  return q.query(
    `INSERT INTO txn (transactional_id, producer_id, producer_epoch, last_producer_id, last_epoch, state, timeout_ms,
       started_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (transactional_id) DO UPDATE SET producer_id = excluded.producer_id,
       producer_epoch = excluded.producer_epoch, last_producer_id = excluded.last_producer_id,
       last_epoch = excluded.last_epoch, state = excluded.state, timeout_ms = excluded.timeout_ms,
       started_ms = excluded.started_ms, updated_ms = excluded.updated_ms`,
    [
      r.transactionalId,
      r.producerId,
      r.producerEpoch,
      r.lastProducerId,
      r.lastProducerEpoch,
      r.state,
      r.timeoutMs,
      r.startedMs,
      r.updatedMs,
    ],
  );
}

function groupBy<R, V>(rows: readonly R[], key: (r: R) => string, value: (r: R) => V): Map<string, V[]> {
  const out = new Map<string, V[]>();
  for (const r of rows) {
    const list = out.get(key(r)) ?? [];
    list.push(value(r));
    out.set(key(r), list);
  }
  return out;
}
