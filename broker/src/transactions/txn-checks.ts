// The checks the transaction coordinator makes of each request's producer, as Kafka's
// TransactionCoordinator does, and the error-code mapping for older request versions.
import { ErrorCode } from '../protocol/error-codes';
import type { TransactionInfo, TxnPartition } from '../storage/storage';
import type { ProducerIdAndEpoch } from './txn-offsets';

/**
 * The epoch bumps a producer may still recover from, by transactional id (KIP-360): the producer
 * naming `from` gets `to` back. Kept in memory only (coordinator.ts's `recoveries`).
 */
export type Recoveries = Map<string, { from: ProducerIdAndEpoch; to: ProducerIdAndEpoch }>;

/**
 * Kafka's newer PRODUCER_FENCED (KIP-588) is INVALID_PRODUCER_EPOCH for the request versions
 * before `sinceVersion` (KafkaApis: InitProducerId < 4, AddPartitionsToTxn, AddOffsetsToTxn and
 * EndTxn < 2), whose clients do not know it.
 */
export function fencedFor(errorCode: number, apiVersion: number, sinceVersion: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && apiVersion < sinceVersion
    ? ErrorCode.INVALID_PRODUCER_EPOCH
    : errorCode;
}

export const sameProducer = (a: ProducerIdAndEpoch, b: ProducerIdAndEpoch) =>
  a.producerId === b.producerId && a.producerEpoch === b.producerEpoch;

/** The producer checks every request after InitProducerId makes (an unknown id is no mapping). */
export function producerError(info: TransactionInfo | undefined, producer: ProducerIdAndEpoch): number {
  if (!info || info.producerId !== producer.producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (info.producerEpoch !== producer.producerEpoch) return ErrorCode.PRODUCER_FENCED;
  return ErrorCode.NONE;
}

/** Whether the transaction holds all these partitions and groups already (nothing to write). */
export function containsAll(
  info: TransactionInfo,
  partitions: readonly TxnPartition[],
  groups: readonly string[],
): boolean {
  const have = new Set(info.partitions.map((p) => `${p.topic}\u0000${p.partition}`));
  return (
    partitions.every((p) => have.has(`${p.topic}\u0000${p.partition}`)) && groups.every((g) => info.groups.includes(g))
  );
}
