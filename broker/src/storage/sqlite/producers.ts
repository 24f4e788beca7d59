// Producer ids (InitProducerId) and the per-partition idempotence state that append-plan.ts reads
// and writes. States are cached per partition (every idempotent batch looks one up); the undo log
// of the surrounding transaction restores the cache on rollback.
import type Database from 'better-sqlite3';
import { producerLastOffset } from '../log-rules';
import type { ProducerBatchEntry, ProducerPartitionState } from '../producer-state';
import type { Transactor } from './transaction';

const ENTRY_BYTES = 16;

export class Producers {
  /** partition id -> producer id -> state, or null when the database has none. */
  private cache = new Map<number, Map<number, ProducerPartitionState | null>>();
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      get: db.prepare('SELECT epoch, batches FROM producer_partition WHERE partition_id = ? AND producer_id = ?'),
      put: db.prepare(
        `INSERT INTO producer_partition (partition_id, producer_id, epoch, last_offset, batches) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET epoch = excluded.epoch, last_offset = excluded.last_offset, batches = excluded.batches`,
      ),
      evict: db.prepare('DELETE FROM producer_partition WHERE partition_id = ? AND last_offset < ?'),
      insert: db.prepare('INSERT INTO producer (transactional_id, epoch, updated_ms) VALUES (?, 0, ?)'),
    };
  }

  state(partitionId: number, producerId: number): ProducerPartitionState | undefined {
    let perPartition = this.cache.get(partitionId);
    if (!perPartition) this.cache.set(partitionId, (perPartition = new Map()));
    let state = perPartition.get(producerId);
    if (state === undefined) {
      const row = this.q.get.get(partitionId, producerId) as { epoch: number; batches: Buffer } | undefined;
      state = row ? { producerEpoch: row.epoch, batches: decodeEntries(row.batches) } : null;
      perPartition.set(producerId, state);
      // Read inside a transaction, it may show that transaction's own changes: drop it on rollback.
      const cached = perPartition;
      this.tx.onRollback(() => cached.delete(producerId));
    }
    return state ?? undefined;
  }

  /** Stores a state computed by append-plan.ts; call inside the append's transaction. */
  save(partitionId: number, producerId: number, state: ProducerPartitionState): void {
    const previous = this.state(partitionId, producerId) ?? null;
    this.q.put.run(
      partitionId,
      producerId,
      state.producerEpoch,
      producerLastOffset(state),
      encodeEntries(state.batches),
    );
    const perPartition = this.cache.get(partitionId)!;
    perPartition.set(producerId, state);
    this.tx.onRollback(() => perPartition.set(producerId, previous));
  }

  /** Forgets producers whose batches all sit below the new log start offset, as Kafka does. */
  evict(partitionId: number, logStartOffset: number): void {
    this.q.evict.run(partitionId, logStartOffset);
    // Reloaded on demand, so dropping is always safe; again on rollback, as reloads saw the delete.
    this.forget([partitionId]);
    this.tx.onRollback(() => this.forget([partitionId]));
  }

  forget(partitionIds: readonly number[]): void {
    for (const id of partitionIds) this.cache.delete(id);
  }

  /**
   * InitProducerId without a transactional id: a new id at epoch 0. (A transactional id's producer
   * id and epoch are transactions.ts', which allocates from the same table.)
   */
  initProducerId(nowMs: number): { producerId: number; producerEpoch: number } {
    return this.tx.run(() => ({
      producerId: Number(this.q.insert.run(null, nowMs).lastInsertRowid),
      producerEpoch: 0,
    }));
  }
}

export function encodeEntries(entries: readonly ProducerBatchEntry[]): Buffer {
  const buf = Buffer.allocUnsafe(entries.length * ENTRY_BYTES);
  entries.forEach((e, i) => {
    buf.writeInt32BE(e.firstSeq, i * ENTRY_BYTES);
    buf.writeInt32BE(e.lastSeq, i * ENTRY_BYTES + 4);
    buf.writeBigInt64BE(BigInt(e.baseOffset), i * ENTRY_BYTES + 8);
  });
  return buf;
}

export function decodeEntries(buf: Buffer): ProducerBatchEntry[] {
  const entries: ProducerBatchEntry[] = [];
  for (let at = 0; at + ENTRY_BYTES <= buf.length; at += ENTRY_BYTES) {
    entries.push({
      firstSeq: buf.readInt32BE(at),
      lastSeq: buf.readInt32BE(at + 4),
      baseOffset: Number(buf.readBigInt64BE(at + 8)),
    });
  }
  return entries;
}
