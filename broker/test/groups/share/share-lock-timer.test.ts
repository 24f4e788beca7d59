// Acquisition locks end on a timer (KIP-932; Kafka's AcquisitionLockTimerTask): a record whose lock
// ends goes back to AVAILABLE (or is archived at the delivery limit) without another fetch, its
// state is stored, and a ShareFetch waiting on the partition is woken and gets it.
import { RecordState } from '../../../src/groups/share/share-partition';
import { batch, part, NOW_MS } from '../../storage/fixtures';
import { MEMBER_A, MEMBER_B, shareKit } from './share-test-kit';

afterEach(() => jest.useRealTimers());

async function setUp(limits: { lockDurationMs: number; deliveryCountLimit?: number }) {
  jest.useFakeTimers({ now: NOW_MS, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const kit = shareKit({ limits });
  const topic = await kit.storage.createTopic('jobs', 1, {});
  await kit.storage.storeSharePartition('g', topic.topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
  await kit.storage.append([part('jobs', 0, [batch({ records: 3 })])], NOW_MS);
  await kit.join(MEMBER_A, ['jobs']);
  await kit.join(MEMBER_B, ['jobs']);
  return { ...kit, topic };
}

it('makes an expired record available on its own and wakes a waiting fetch of another member', async () => {
  const { share, topic, fetch, waiters } = await setUp({ lockDurationMs: 2_000 });
  const a = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 0));
  expect(a.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 }]);
  // B finds nothing and waits (its waiters end only when notified).
  let bDone = false;
  const b = share.fetcher.handle(fetch(MEMBER_B, topic.topicId, 0, { maxWaitMs: 30_000 })).then((r) => {
    bDone = true;
    return r;
  });
  await jest.advanceTimersByTimeAsync(1_999);
  expect({ bDone, waiting: waiters.waiting() }).toEqual({ bDone: false, waiting: 1 });
  await jest.advanceTimersByTimeAsync(1);
  const state = await share.partitions.get('g', topic, 0);
  // B was woken and took the records again (second delivery); nobody fetched in between.
  expect((await b).partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 2 }]);
  expect(waiters.notified).toContain('jobs:0');
  expect(state.record(0)).toMatchObject({ state: RecordState.ACQUIRED, memberId: MEMBER_B });
  share.close();
});

it('archives at the delivery limit when the lock ends, and stores it', async () => {
  const { share, topic, fetch, storage } = await setUp({ lockDurationMs: 1_000, deliveryCountLimit: 2 });
  await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 0));
  await jest.advanceTimersByTimeAsync(1_000);
  await share.fetcher.handle(fetch(MEMBER_B, topic.topicId, 0));
  await jest.advanceTimersByTimeAsync(1_000);
  const state = await share.partitions.get('g', topic, 0);
  expect([0, 1, 2].map((o) => state.record(o)?.state)).toEqual([undefined, undefined, undefined]);
  expect(state.startOffset).toBe(3);
  await share.writesSettled();
  expect(await storage.sharePartition('g', topic.topicId, 0)).toMatchObject({ startOffset: 3, endOffset: 3 });
  share.close();
});
