// A transaction coordinator over the memory engine with a fake clock: what the coordinator tests
// drive. Batches are real v2 batches, so the engine's own append checks (epoch, KIP-890) apply.
import { GroupCoordinator } from '../../src/groups/coordinator';
import { silentLogger } from '../../src/logger';
import { ErrorCode as E } from '../../src/protocol/error-codes';
import { encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import type { PartitionAppendResult, SyncStorage, TransactionInfo, TxnPartition } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { TransactionCoordinator, TransactionCoordinatorOptions } from '../../src/transactions/coordinator';
import { FakeTimers } from '../groups/fake-timers';

export const START_MS = 1_700_000_000_000;

/** A Produce v9 body with one transactional record of producer `p` for `topic`-`partition`. */
export function txnProduceRequest(
  transactionalId: string,
  topic: string,
  partition: number,
  p: { producerId: bigint; producerEpoch: number },
  value: string,
  baseSequence: number,
) {
  return {
    transactionalId,
    acks: -1,
    timeoutMs: 5000,
    topicData: [
      {
        name: topic,
        partitionData: [
          {
            index: partition,
            records: encodeRecordBatch({
              records: [{ value: Buffer.from(value), timestamp: BigInt(Date.now()) }],
              producerId: p.producerId,
              producerEpoch: p.producerEpoch,
              baseSequence,
              isTransactional: true,
            }),
          },
        ],
      },
    ],
  };
}

export function harness(opts: Partial<TransactionCoordinatorOptions> = {}) {
  // The coordinators get the engine as AsyncStorage; the tests inspect it synchronously.
  const storage: SyncStorage = new MemoryStorage();
  storage.createTopic('t', 2, {});
  const asyncStorage = promised(storage);
  const timers = new FakeTimers();
  timers.nowMs = START_MS;
  const groups = new GroupCoordinator({
    storage: asyncStorage,
    logger: silentLogger,
    now: timers.now,
    timers,
    initialRebalanceDelayMs: 0,
  });
  const marked: TxnPartition[][] = [];
  const coord = new TransactionCoordinator({
    storage: asyncStorage,
    logger: silentLogger,
    now: timers.now,
    timers,
    groups,
    onMarked: (p) => marked.push([...p]),
    ...opts,
  });
  const sequences = new Map<string, number>();
  /** Appends one transactional record of `producer` to t-`partition`, as a produce would. */
  const produce = (
    producer: { producerId: number; producerEpoch: number },
    partition = 0,
    value = 'v',
  ): PartitionAppendResult => {
    const key = `${producer.producerId}/${producer.producerEpoch}/${partition}`;
    const seq = sequences.get(key) ?? 0;
    const data = encodeRecordBatch({
      records: [{ value: Buffer.from(value), timestamp: BigInt(timers.nowMs) }],
      producerId: BigInt(producer.producerId),
      producerEpoch: producer.producerEpoch,
      baseSequence: seq,
      isTransactional: true,
    });
    const [r] = storage.append(
      [{ topic: 't', partition, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false }],
      timers.nowMs,
    );
    if (r!.errorCode === 0) sequences.set(key, seq + 1);
    return r!;
  };
  const info = (id = 'tx'): TransactionInfo | undefined => storage.transaction(id);
  return { storage, timers, groups, coord, marked, produce, info };
}

export const t = (partition: number): TxnPartition => ({ topic: 't', partition });

/** InitProducerId for `id` (a new transactional producer): its id and epoch. */
export const begin = async (h: ReturnType<typeof harness>, id = 'tx', timeoutMs = 60_000) => {
  const p = await h.coord.initProducerId(id, timeoutMs, null);
  expect(p.errorCode).toBe(E.NONE);
  return { producerId: p.producerId, producerEpoch: p.producerEpoch };
};
