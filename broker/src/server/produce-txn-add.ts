// Produce v12+ (KIP-890 part 2, transaction version 2): a producer that reads the finalized
// transaction.version 2 sends no AddPartitionsToTxn; its transactional produce adds the partitions
// to the transaction, as Kafka's partition leader asks the coordinator before appending
// (AddPartitionsToTxnManager with TransactionSupportedOperation.addPartition, chosen by the
// Produce version alone). The add is the coordinator's AddPartitionsToTxn step (the same checks,
// one storage transaction, nothing written when the partitions are already in it); the append then
// checks the batches against the transaction as for any version (txn-rules.ts). A crash between
// the two leaves a partition in the transaction with nothing written: its marker still goes there
// at the end, as in Kafka.
//
// Several brokers on one database (src/cluster): the leader calls its own coordinator, whatever
// broker coordinates the id; the storage engine orders the steps of one id (postgres's row lock).
import { ErrorCode } from '../protocol/error-codes';
import { isTransactional } from '../protocol/record-batch';
import type { PartitionAppend, TxnPartition } from '../storage/storage';
import type { TransactionCoordinator } from '../transactions/coordinator';

/** The first Produce version whose transactional batches add their partition (ProduceRequest.json v12). */
export const IMPLICIT_ADD_PRODUCE_VERSION = 12;

/**
 * The coordinator's answer as the producer reads it in a Produce response (Kafka's
 * AddPartitionsToTxnManager and ReplicaManager): a fenced epoch is INVALID_PRODUCER_EPOCH, a
 * coordinator that cannot answer now NOT_ENOUGH_REPLICAS (retriable: the batch is sent again).
 */
function produceError(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.PRODUCER_FENCED:
      return ErrorCode.INVALID_PRODUCER_EPOCH;
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.CONCURRENT_TRANSACTIONS:
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    default:
      return errorCode;
  }
}

/**
 * Adds the partitions of `appends` that carry transactional batches to `transactionalId`'s
 * transaction, per producer id and epoch (one in practice). Returns, by index in `appends`, the
 * error of each append whose add was refused; the caller answers those and appends the others.
 */
export async function addProducePartitions(
  transactions: TransactionCoordinator,
  transactionalId: string,
  appends: readonly PartitionAppend[],
): Promise<Map<number, number>> {
  const byProducer = new Map<string, { producerId: number; producerEpoch: number; indexes: number[] }>();
  appends.forEach((a, i) => {
    const first = a.batches.find((b) => isTransactional(b.header.attributes));
    if (!first) return;
    const producer = { producerId: Number(first.header.producerId), producerEpoch: first.header.producerEpoch };
    const key = `${producer.producerId}:${producer.producerEpoch}`;
    const entry = byProducer.get(key) ?? { ...producer, indexes: [] };
    entry.indexes.push(i);
    byProducer.set(key, entry);
  });
  const refused = new Map<number, number>();
  for (const { producerId, producerEpoch, indexes } of byProducer.values()) {
    const partitions: TxnPartition[] = indexes.map((i) => ({
      topic: appends[i]!.topic,
      partition: appends[i]!.partition,
    }));
    const error = await transactions.addPartitions(transactionalId, { producerId, producerEpoch }, partitions);
    if (error !== ErrorCode.NONE) for (const i of indexes) refused.set(i, produceError(error));
  }
  return refused;
}
