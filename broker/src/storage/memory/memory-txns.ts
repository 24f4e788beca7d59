// The memory:// engine's transactions (docs/transactions.md): the coordinator's state per
// transactional id, with the same rules as SQLite's (txn-rules.ts, control-batch.ts). Each call
// checks everything it can fail on before it changes anything, so a refused call leaves no trace.
import { controlBatch } from '../control-batch';
import { StorageError } from '../storage';
import type { CommittedOffset, EndTransactionResult, EpochBump, TransactionInfo, TxnPartition } from '../storage';
import { checkTxnBatch, endTxnEpoch, fencedEpoch, initTxnProducer, sortTxnPartitions } from '../txn-rules';
import type { TxnCheck } from '../txn-rules';
import type { RecordBatchHeader } from '../../protocol/record-batch';
import type { MemoryLog } from './memory-log';

type PendingOffset = Omit<CommittedOffset, 'commitTimestampMs'>;

interface MemoryTxn {
  info: Omit<TransactionInfo, 'partitions' | 'groups'>;
  /** By `topic NUL partition`. */
  partitions: Map<string, TxnPartition>;
  groups: Set<string>;
  /** group -> `topic NUL partition` -> offset pending until commit. */
  offsets: Map<string, Map<string, PendingOffset>>;
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export interface MemoryTxnHost {
  log(topic: string, partition: number): MemoryLog | undefined;
  /** message.timestamp.type=LogAppendTime on the topic (its markers say so). */
  logAppendTime(topic: string): boolean;
  allocateProducerId(): number;
  commitOffsets(groupId: string, offsets: readonly PendingOffset[], nowMs: number): void;
}

export class MemoryTransactions {
  private readonly txns = new Map<string, MemoryTxn>();
  private readonly byProducer = new Map<number, MemoryTxn>();

  constructor(private readonly host: MemoryTxnHost) {}

  list(): TransactionInfo[] {
    return [...this.txns.keys()].sort().map((id) => describe(this.txns.get(id)!));
  }

  get(transactionalId: string): TransactionInfo | undefined {
    const t = this.txns.get(transactionalId);
    return t && describe(t);
  }

  init(transactionalId: string, timeoutMs: number, nowMs: number): TransactionInfo {
    const t = this.txns.get(transactionalId);
    const change = initTxnProducer(t && t.info);
    if (t && t.info.state === 'Ongoing') {
      // Fencing abort with the new epoch (Kafka's prepareFenceProducerEpoch), before a new id if any.
      this.end(t, false, nowMs, change.newProducerId ? fencedEpoch(t.info.producerEpoch) : change.producerEpoch);
    }
    const producerId = change.newProducerId ? this.host.allocateProducerId() : change.producerId;
    const info = {
      transactionalId,
      producerId,
      producerEpoch: change.producerEpoch,
      lastProducerId: change.lastProducerId,
      lastProducerEpoch: change.lastProducerEpoch,
      state: 'Empty' as const,
      timeoutMs,
      startedMs: -1,
      updatedMs: nowMs,
    };
    if (t) this.byProducer.delete(t.info.producerId);
    const next: MemoryTxn = { info, partitions: new Map(), groups: new Set(), offsets: new Map() };
    this.txns.set(transactionalId, next);
    this.byProducer.set(producerId, next);
    return describe(next);
  }

  add(transactionalId: string, partitions: readonly TxnPartition[], groups: readonly string[], nowMs: number) {
    const t = this.mustGet(transactionalId);
    for (const p of partitions) {
      if (!this.host.log(p.topic, p.partition))
        throw new StorageError(
          `cannot add unknown partition ${p.topic}-${p.partition} to transaction "${transactionalId}"`,
        );
    }
    if (t.info.state !== 'Ongoing') {
      t.info.state = 'Ongoing';
      t.info.startedMs = nowMs;
    }
    t.info.updatedMs = nowMs;
    for (const p of partitions) t.partitions.set(key(p.topic, p.partition), { topic: p.topic, partition: p.partition });
    for (const g of groups) t.groups.add(g);
    return describe(t);
  }

  commitOffsets(transactionalId: string, groupId: string, offsets: readonly PendingOffset[]): void {
    const t = this.mustGet(transactionalId);
    let pending = t.offsets.get(groupId);
    if (!pending) t.offsets.set(groupId, (pending = new Map()));
    for (const o of offsets) pending.set(key(o.topic, o.partition), { ...o });
  }

  endTransaction(
    transactionalId: string,
    commit: boolean,
    nowMs: number,
    bump: EpochBump = 'none',
  ): EndTransactionResult {
    const t = this.mustGet(transactionalId);
    const { markerEpoch, newProducerId } = endTxnEpoch(t.info.producerEpoch, bump);
    const last = { lastProducerId: t.info.producerId, lastProducerEpoch: t.info.producerEpoch };
    if (markerEpoch !== t.info.producerEpoch) Object.assign(t.info, { ...last, producerEpoch: markerEpoch });
    const markedPartitions = this.end(t, commit, nowMs, markerEpoch);
    if (newProducerId) {
      // Transaction version 2's epoch overflow: the markers went out with the old id, the
      // producer goes on with a new one (EndTxn answers it).
      this.byProducer.delete(t.info.producerId);
      Object.assign(t.info, { ...last, producerId: this.host.allocateProducerId(), producerEpoch: 0 });
      this.byProducer.set(t.info.producerId, t);
    }
    return { info: describe(t), markedPartitions };
  }

  pendingOffsets(groupId: string): TxnPartition[] {
    const seen = new Map<string, TxnPartition>();
    for (const t of this.txns.values()) {
      for (const o of t.offsets.get(groupId)?.values() ?? [])
        seen.set(key(o.topic, o.partition), { topic: o.topic, partition: o.partition });
    }
    return sortTxnPartitions([...seen.values()]);
  }

  delete(transactionalId: string): boolean {
    const t = this.txns.get(transactionalId);
    if (!t || t.info.state === 'Ongoing') return false;
    this.txns.delete(transactionalId);
    this.byProducer.delete(t.info.producerId);
    return true;
  }

  /** The append check of one producer's batch in a partition (txn-rules.ts). */
  check(header: RecordBatchHeader, topic: string, partition: number, log: MemoryLog): TxnCheck {
    const producerId = Number(header.producerId);
    return checkTxnBatch(
      header,
      () => {
        const t = this.byProducer.get(producerId);
        return (
          t && {
            producerEpoch: t.info.producerEpoch,
            state: t.info.state,
            partitionAdded: t.partitions.has(key(topic, partition)),
          }
        );
      },
      log.openTxns.has(producerId),
    );
  }

  /** A deleted topic leaves every transaction (its partitions and pending offsets). */
  forgetTopic(topic: string): void {
    for (const t of this.txns.values()) {
      for (const [k, p] of t.partitions) if (p.topic === topic) t.partitions.delete(k);
      for (const pending of t.offsets.values()) for (const [k, o] of pending) if (o.topic === topic) pending.delete(k);
    }
  }

  /** Markers, offsets and the new state; the caller has settled the epoch the markers carry. */
  private end(t: MemoryTxn, commit: boolean, nowMs: number, epoch: number): TxnPartition[] {
    const marked = sortTxnPartitions([...t.partitions.values()]);
    for (const p of marked) {
      const log = this.host.log(p.topic, p.partition)!; // deleted topics leave t.partitions
      const row = controlBatch(
        t.info.producerId,
        epoch,
        commit,
        log.highWatermark,
        nowMs,
        this.host.logAppendTime(p.topic),
      );
      log.appendMarker(row, commit);
    }
    if (commit) for (const [group, pending] of t.offsets) this.host.commitOffsets(group, [...pending.values()], nowMs);
    t.partitions.clear();
    t.groups.clear();
    t.offsets.clear();
    t.info.state = commit ? 'CompleteCommit' : 'CompleteAbort';
    t.info.updatedMs = nowMs;
    return marked;
  }

  private mustGet(transactionalId: string): MemoryTxn {
    const t = this.txns.get(transactionalId);
    if (!t) throw new StorageError(`unknown transactional id "${transactionalId}": InitProducerId first`);
    return t;
  }
}

function describe(t: MemoryTxn): TransactionInfo {
  return {
    ...t.info,
    partitions: sortTxnPartitions([...t.partitions.values()]),
    groups: [...t.groups].sort(),
  };
}
