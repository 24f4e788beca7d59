// Which partitions one ShareFetch reads, as Kafka 4.1.1 does (share-fetch-order.ts). Kafka's
// answers for the same steps, seen with raw requests on the oracle (2 or 3 partitions of one
// batch each, share.auto.offset.reset=earliest): a first fetch answers only partition 0 (the
// share-partitions initialize one after the other and the waiting fetch completes with the first
// ready one), the next fetch the others; once initialized, one fetch answers all partitions; two
// 300-record batches under MaxRecords 500 are acquired whole (600).
import { openStorage } from '../../../src/storage/open-storage';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import type { ShareFetchInput, ShareFetchOutput } from '../../../src/groups/share/share-fetcher';
import { fetchPlan, rotateForEpoch } from '../../../src/groups/share/share-fetch-order';
import { batch, part, NOW_MS } from '../../storage/fixtures';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
const waiters = { wait: () => Promise.resolve(), notify: () => {} };

describe('rotateForEpoch (Kafka PartitionRotateStrategy.ROUND_ROBIN)', () => {
  it('starts at sessionEpoch % count; epoch 0, -1 and one partition do not rotate', () => {
    expect(rotateForEpoch([0, 1, 2], 0)).toEqual([0, 1, 2]);
    expect(rotateForEpoch([0, 1, 2], 1)).toEqual([1, 2, 0]);
    expect(rotateForEpoch([0, 1, 2], 5)).toEqual([2, 0, 1]);
    expect(rotateForEpoch([0, 1, 2], 3)).toEqual([0, 1, 2]);
    expect(rotateForEpoch([0, 1, 2], -1)).toEqual([0, 1, 2]);
    expect(rotateForEpoch([7], 4)).toEqual([7]);
  });
  it('plans the ready partitions first, then the ones to create, each in the rotated order', () => {
    expect(fetchPlan([0, 1, 2, 3], 1, (k) => k % 2 === 0)).toEqual([
      { key: 2, create: false },
      { key: 0, create: false },
      { key: 1, create: true },
      { key: 3, create: true },
    ]);
  });
});

/** A topic whose share-partitions (group g) start at offset 0; `append` writes to every partition. */
async function topicOf(partitions: number) {
  const storage = await openStorage('memory://');
  const { topicId } = await storage.createTopic('jobs', partitions, {});
  for (let p = 0; p < partitions; p++)
    await storage.storeSharePartition('g', topicId, p, { startOffset: 0, endOffset: 0, records: [] });
  const append = async (recordsPerBatch: number, batchesPerPartition: number) => {
    for (let p = 0; p < partitions; p++)
      for (let b = 0; b < batchesPerPartition; b++)
        await storage.append([part('jobs', p, [batch({ records: recordsPerBatch })])], NOW_MS);
  };
  const share = new ShareGroups({ storage, logger: silent, now: () => NOW_MS, fetchWaiters: waiters });
  const fetch = (epoch: number, maxRecords = 500): ShareFetchInput => ({
    groupId: 'g',
    memberId: 'm',
    shareSessionEpoch: epoch,
    maxWaitMs: 0,
    maxBytes: 1 << 20,
    maxRecords,
    topics:
      epoch === 0
        ? [
            {
              topicId,
              partitions: Array.from({ length: partitions }, (_, i) => ({
                partitionIndex: i,
                acknowledgementBatches: [],
              })),
            },
          ]
        : [],
    forgotten: [],
    mayRead: () => true,
    fetch: true,
  });
  const done = async () => {
    await share.writesSettled();
    share.close();
    await storage.close();
  };
  return { share, fetch, done, append };
}

/** partition -> acquired offsets "first-last" of one answer. */
const acquired = (out: ShareFetchOutput) =>
  Object.fromEntries(
    out.partitions
      .filter((p) => p.acquiredRecords.length > 0)
      .map((p) => [p.partitionIndex, p.acquiredRecords.map((r) => `${r.firstOffset}-${r.lastOffset}`).join(',')]),
  );

describe('ShareFetcher: which partitions a fetch reads and how much', () => {
  it('a first fetch reads the first partition it creates; the next one reads the rest', async () => {
    const k = await topicOf(3);
    await k.append(50, 1);
    expect(acquired(await k.share.fetcher.handle(k.fetch(0)))).toEqual({ 0: '0-49' });
    expect(acquired(await k.share.fetcher.handle(k.fetch(1)))).toEqual({ 1: '0-49', 2: '0-49' });
    await k.done();
  });

  it('reads every initialized partition in one fetch', async () => {
    const k = await topicOf(2);
    expect(acquired(await k.share.fetcher.handle(k.fetch(0)))).toEqual({});
    await k.append(50, 1);
    expect(acquired(await k.share.fetcher.handle(k.fetch(1)))).toEqual({ 0: '0-49', 1: '0-49' });
    await k.done();
  });

  it('takes whole record batches under MaxRecords (a soft limit), as Kafka', async () => {
    const k = await topicOf(1);
    await k.append(300, 2);
    expect(acquired(await k.share.fetcher.handle(k.fetch(0, 500)))).toEqual({ 0: '0-599' });
    await k.done();
  });
});
