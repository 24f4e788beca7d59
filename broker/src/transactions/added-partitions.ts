// What the coordinator knows to be in each ongoing transaction, by transactional id and producer
// epoch, so Produce v12's add (KIP-890 part 2: every transactional produce of a Java 4.x producer
// asks it) answers without reading storage once the partitions are in: ~50 µs of CPU per produce
// request on sqlite, measured. Kafka's partition leaders keep the same kind of record
// (VerificationStateEntry) for the same reason.
//
// The coordinator forgets an id at each of its own steps that can take partitions out (InitProducerId,
// EndTxn, the timeout abort, expiry). A step by another broker on the same database (src/cluster)
// is not seen here, but every such step bumps the epoch the entry is keyed by (InitProducerId, the
// timeout, a version-2 EndTxn) or is a version-1 EndTxn whose producer adds its partitions with
// AddPartitionsToTxn before producing. A deleted topic leaves transactions without the coordinator
// seeing it either. In every case the append checks each transactional batch against the stored
// transaction anyway (txn-rules.ts), so a stale entry can only cost the producer the error the
// append gives, never a write outside a transaction.
import type { TxnPartition } from '../storage/storage';
import type { ProducerIdAndEpoch } from './txn-offsets';

const key = (p: TxnPartition) => `${p.topic}\u0000${p.partition}`;

export class AddedPartitions {
  private readonly byId = new Map<string, { producerId: number; producerEpoch: number; partitions: Set<string> }>();

  /** Whether all `partitions` are known to be in `transactionalId`'s ongoing transaction at this producer's epoch. */
  has(transactionalId: string, producer: ProducerIdAndEpoch, partitions: readonly TxnPartition[]): boolean {
    const e = this.byId.get(transactionalId);
    return (
      e !== undefined &&
      e.producerId === producer.producerId &&
      e.producerEpoch === producer.producerEpoch &&
      partitions.every((p) => e.partitions.has(key(p)))
    );
  }

  /** The stored ongoing transaction's partitions, just read or written by the coordinator. */
  remember(transactionalId: string, producer: ProducerIdAndEpoch, partitions: readonly TxnPartition[]): void {
    this.byId.set(transactionalId, { ...producer, partitions: new Set(partitions.map(key)) });
  }

  forget(transactionalId: string): void {
    this.byId.delete(transactionalId);
  }
}
