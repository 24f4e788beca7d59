// The producer checks the coordinator's steps share (TransactionCoordinator.scala's, per request).
import { ErrorCode } from '../protocol/error-codes';
import type { TransactionInfo, TxnPartition } from '../storage/storage';
import type { ProducerIdAndEpoch } from './txn-offsets';

export const same = (a: ProducerIdAndEpoch, b: ProducerIdAndEpoch) =>
  a.producerId === b.producerId && a.producerEpoch === b.producerEpoch;

/** The producer checks every request after InitProducerId makes (an unknown id is no mapping). */
export function producerError(info: TransactionInfo | undefined, producer: ProducerIdAndEpoch): number {
  if (!info || info.producerId !== producer.producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (info.producerEpoch !== producer.producerEpoch) return ErrorCode.PRODUCER_FENCED;
  return ErrorCode.NONE;
}

export function contains(
  info: TransactionInfo,
  partitions: readonly TxnPartition[],
  groups: readonly string[],
): boolean {
  const have = new Set(info.partitions.map((p) => `${p.topic}\u0000${p.partition}`));
  return (
    partitions.every((p) => have.has(`${p.topic}\u0000${p.partition}`)) && groups.every((g) => info.groups.includes(g))
  );
}
