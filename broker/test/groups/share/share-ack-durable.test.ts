// An acknowledgement is answered only once the share-partition state that records it is stored,
// as Kafka answers after its share-state write (SharePartition.acknowledge completes after
// writeShareGroupState): a broker killed after the answer must not deliver the record again. On an
// engine whose writes finish later (postgres://), the answer used to go out first.
import { openStorage } from '../../../src/storage/open-storage';
import type { AsyncStorage } from '../../../src/storage/storage';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import { AcknowledgeType } from '../../../src/groups/share/share-partition';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { batch, part, NOW_MS } from '../../storage/fixtures';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
const waiters = { wait: () => Promise.resolve(), notify: () => {} };
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

it.each([true, false])('answers an acceptance only after it is stored (ShareFetch: %s)', async (viaFetch) => {
  const storage = await openStorage('memory://');
  const topic = await storage.createTopic('jobs', 1, {});
  await storage.append([part('jobs', 0, [batch({ records: 2 })])], NOW_MS);
  await storage.storeSharePartition('g', topic.topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
  // Writes of share-partition state wait for `release` once `gated` is set.
  let gated = false;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow: AsyncStorage = {
    ...storage,
    storeSharePartition: async (...args: Parameters<AsyncStorage['storeSharePartition']>) => {
      if (gated) await gate;
      return storage.storeSharePartition(...args);
    },
  };
  const share = new ShareGroups({ storage: slow, logger: silent, now: () => NOW_MS, fetchWaiters: waiters });
  const request = (
    epoch: number,
    acks: ShareFetchInput['topics'][number]['partitions'][number]['acknowledgementBatches'],
  ) => ({
    groupId: 'g',
    memberId: 'm',
    shareSessionEpoch: epoch,
    maxWaitMs: 0,
    maxBytes: 1 << 20,
    maxRecords: 10,
    topics: [{ topicId: topic.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
    forgotten: [],
    mayRead: () => true,
    fetch: viaFetch,
  });
  const first = await share.fetcher.handle({ ...request(0, []), fetch: true });
  expect(first.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
  await share.writesSettled();

  gated = true;
  let answered = false;
  const ack = share.fetcher
    .handle(request(1, [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [AcknowledgeType.ACCEPT] }]))
    .then((r) => {
      answered = true;
      return r;
    });
  await turns(5);
  expect(answered).toBe(false);
  release();
  const r = await ack;
  expect(r.partitions[0]!.acknowledgeErrorCode).toBe(0);
  await expect(storage.sharePartition('g', topic.topicId, 0)).resolves.toMatchObject({ startOffset: 2 });
  await share.writesSettled();
  share.close();
  await storage.close();
});
