// Helpers for the storage contract: real v2 batches from the protocol codec, and the context
// every contract part runs against.
import { encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import type { AsyncStorage, PartitionAppend } from '../../src/storage/storage';

export interface ContractContext {
  /** The storage under test (a fresh one per test). */
  readonly s: AsyncStorage;
  /** Closes and reopens the same storage, when the engine persists (replaces `s`). */
  readonly reopen: (() => Promise<AsyncStorage>) | undefined;
  /** Engine hooks for tests that would otherwise take tens of thousands of round trips. */
  readonly hooks?: ContractHooks;
}

export interface ContractHooks {
  /**
   * Sets a transactional id's stored epoch (the id must exist). A network engine supplies it so
   * the epoch-exhaustion test jumps near 32767 instead of making ~32k calls; without it the test
   * walks every epoch.
   */
  fastForwardEpoch?: (s: AsyncStorage, transactionalId: string, epoch: number) => Promise<void>;
}

export interface BatchOptions {
  records?: number;
  valueBytes?: number;
  timestampMs?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  /** Attributes bit 4: a transactional producer's batch. */
  transactional?: boolean;
}

/** A batch as the produce path hands it to storage: header plus its bytes. */
export function batch(o: BatchOptions = {}): PartitionAppend['batches'][number] {
  const n = o.records ?? 1;
  const ts = BigInt(o.timestampMs ?? 1_700_000_000_000);
  const data = encodeRecordBatch({
    records: Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.alloc(o.valueBytes ?? 10, i),
      timestamp: ts + BigInt(i),
    })),
    producerId: BigInt(o.producerId ?? -1),
    producerEpoch: o.producerEpoch ?? -1,
    baseSequence: o.baseSequence ?? -1,
    isTransactional: o.transactional ?? false,
  });
  return { header: readBatchHeader(data), data };
}

export function part(
  topic: string,
  partition: number,
  batches: PartitionAppend['batches'],
  logAppendTime = false,
): PartitionAppend {
  return { topic, partition, batches, logAppendTime };
}

/** Copies a batch so the same bytes can be sent again (append rewrites them in place). */
export function resend(b: PartitionAppend['batches'][number]): PartitionAppend['batches'][number] {
  const data = Buffer.from(b.data);
  data.writeBigInt64BE(0n, 0);
  return { header: readBatchHeader(data), data };
}

/** Base offsets of stored batches, read from their (rewritten) headers. */
export function baseOffsets(batches: Buffer[]): number[] {
  return batches.map((b) => Number(readBatchHeader(b).baseOffset));
}

export const NOW_MS = 1_700_000_100_000;
