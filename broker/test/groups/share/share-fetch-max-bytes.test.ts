// A ShareFetch with MaxBytes 0 acquires nothing (librdkafka 0180's fetch.max.bytes=0 test: "a
// ShareFetch with MaxBytes=0 returns no records. This matches the Java client"); it used to be
// read as "no limit" and acquired the records.
import { openStorage } from '../../../src/storage/open-storage';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { batch, part, NOW_MS } from '../../storage/fixtures';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
const waiters = { wait: () => Promise.resolve(), notify: () => {} };

it('a ShareFetch with MaxBytes 0 acquires no record; the next one with room acquires them all', async () => {
  const storage = await openStorage('memory://');
  const { topicId } = await storage.createTopic('jobs', 1, {});
  await storage.append([part('jobs', 0, [batch({ records: 3 })])], NOW_MS);
  await storage.storeSharePartition('g', topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
  const share = new ShareGroups({ storage, logger: silent, now: () => NOW_MS, fetchWaiters: waiters });
  const fetch = (epoch: number, maxBytes: number): ShareFetchInput => ({
    groupId: 'g',
    memberId: 'm',
    shareSessionEpoch: epoch,
    maxWaitMs: 0,
    maxBytes,
    maxRecords: 10,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
    forgotten: [],
    mayRead: () => true,
    fetch: true,
  });
  const none = await share.fetcher.handle(fetch(0, 0));
  expect(none.errorCode).toBe(0);
  expect(none.partitions.flatMap((p) => p.acquiredRecords)).toEqual([]);
  const all = await share.fetcher.handle(fetch(1, 1 << 20));
  expect(all.partitions.flatMap((p) => p.acquiredRecords)).toEqual([
    { firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 },
  ]);
  await share.writesSettled();
  share.close();
  await storage.close();
});
