// A ShareFetch's MinBytes and MaxBytes as Kafka 4.1.1 spends them: DelayedShareFetch waits until
// the partitions hold MinBytes past their fetch offsets (isMinBytesSatisfied) or MaxWaitMs passed,
// then answers what it has; MaxBytes is split evenly between the partitions read
// (PartitionMaxBytesStrategy UNIFORM). minnow used to answer at once whatever it acquired, and
// spent MaxBytes partition after partition (a first partition with a backlog took it all).
import { openStorage } from '../../../src/storage/open-storage';
import { ShareGroups, type ShareGroupsOptions } from '../../../src/groups/share/share-groups';
import type { ShareFetchInput, ShareFetchOutput } from '../../../src/groups/share/share-fetcher';
import { batch, part, NOW_MS } from '../../storage/fixtures';
import { wakeOnlyWaiters } from './share-test-kit';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;

/** A topic whose share-partitions (group g) start at 0; a clock the test moves; waits end on notify. */
async function setup(partitions: number, limits: Partial<ShareGroupsOptions['limits']> = {}) {
  const storage = await openStorage('memory://');
  const { topicId } = await storage.createTopic('jobs', partitions, {});
  for (let p = 0; p < partitions; p++)
    await storage.storeSharePartition('g', topicId, p, { startOffset: 0, endOffset: 0, records: [] });
  const clock = { ms: NOW_MS };
  const waiters = wakeOnlyWaiters();
  const share = new ShareGroups({ storage, logger: silent, now: () => clock.ms, fetchWaiters: waiters, limits });
  /** Appends one batch of `records` records of `valueBytes` bytes; returns the batch's size. */
  const append = async (partition: number, records: number, valueBytes: number) => {
    const b = batch({ records, valueBytes });
    await storage.append([part('jobs', partition, [b])], NOW_MS);
    waiters.notify('jobs', partition);
  };
  const fetch = (more: Partial<ShareFetchInput>): ShareFetchInput => ({
    groupId: 'g',
    memberId: 'm',
    shareSessionEpoch: 0,
    maxWaitMs: 500,
    maxBytes: 1 << 20,
    maxRecords: 500,
    topics: [
      {
        topicId,
        partitions: Array.from({ length: partitions }, (_, i) => ({ partitionIndex: i, acknowledgementBatches: [] })),
      },
    ],
    forgotten: [],
    mayRead: () => true,
    fetch: true,
    ...more,
  });
  const close = async () => {
    await share.writesSettled();
    share.close();
    await storage.close();
  };
  return { storage, topicId, share, clock, waiters, append, fetch, close };
}

const acquired = (out: ShareFetchOutput) =>
  out.partitions
    .filter((p) => p.acquiredRecords.length > 0)
    .map((p) => ({
      partition: p.partitionIndex,
      offsets: p.acquiredRecords.map((r) => [Number(r.firstOffset), Number(r.lastOffset)]),
    }))
    .sort((a, b) => a.partition - b.partition);

/** Lets the fetch run until it waits (or answers); bounded. */
async function settle(waiters: { waiting: () => number }, answered: () => boolean) {
  for (let i = 0; i < 200 && waiters.waiting() === 0 && !answered(); i++) await new Promise((r) => setImmediate(r));
}

describe('ShareFetch MinBytes (Kafka DelayedShareFetch.isMinBytesSatisfied)', () => {
  it('waits while less than MinBytes is readable and answers all of it once an append brings enough', async () => {
    const k = await setup(1);
    await k.append(0, 1, 10); // one small batch (~80 bytes)
    let out: ShareFetchOutput | undefined;
    const pending = k.share.fetcher.handle(k.fetch({ minBytes: 1000 })).then((o) => (out = o));
    await settle(k.waiters, () => out !== undefined);
    expect(out).toBeUndefined(); // minnow used to answer the small batch at once
    expect(k.waiters.waiting()).toBe(1);
    await k.append(0, 2, 600); // ~1.3 KB: MinBytes reached
    await pending;
    expect(acquired(out!)).toEqual([{ partition: 0, offsets: [[0, 2]] }]);
    await k.close();
  });

  it('answers what it has once MaxWaitMs has passed', async () => {
    const k = await setup(1);
    await k.append(0, 1, 10);
    let out: ShareFetchOutput | undefined;
    const pending = k.share.fetcher.handle(k.fetch({ minBytes: 1000 })).then((o) => (out = o));
    await settle(k.waiters, () => out !== undefined);
    expect(out).toBeUndefined();
    k.clock.ms += 500; // MaxWaitMs
    await k.append(0, 1, 10); // wakes the wait; still short of MinBytes
    await pending;
    expect(acquired(out!)).toEqual([{ partition: 0, offsets: [[0, 1]] }]);
    await k.close();
  });

  it('does not count the bytes of a partition at its in-flight limit: they cannot be acquired', async () => {
    const k = await setup(2, { maxInFlight: 4 });
    await k.append(0, 4, 10); // partition 0's whole in-flight limit ...
    const holder = await k.share.fetcher.handle({
      ...k.fetch({ maxWaitMs: 0 }),
      memberId: 'm0',
      topics: [{ topicId: k.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
    });
    expect(acquired(holder)).toEqual([{ partition: 0, offsets: [[0, 3]] }]);
    await k.append(0, 2, 600); // ... held by m0, so these ~1.3 KB past it wait for m0
    let out: ShareFetchOutput | undefined;
    const pending = k.share.fetcher.handle(k.fetch({ minBytes: 1000 })).then((o) => (out = o));
    await settle(k.waiters, () => out !== undefined);
    await k.append(1, 1, 10); // a small batch on partition 1: still short of MinBytes
    for (let i = 0; i < 50 && out === undefined; i++) await new Promise((r) => setImmediate(r));
    // minnow used to count partition 0's backlog, find MinBytes readable, acquire nothing there,
    // and answer this small batch at the first wake-up.
    expect(out).toBeUndefined();
    k.clock.ms += 500; // MaxWaitMs
    k.waiters.notify('jobs', 1);
    await pending;
    expect(acquired(out!)).toEqual([{ partition: 1, offsets: [[0, 0]] }]);
    await k.close();
  });

  it('answers at once when MinBytes is already readable, and holds no record while it waits', async () => {
    const k = await setup(1);
    await k.append(0, 2, 600);
    const out = await k.share.fetcher.handle(k.fetch({ minBytes: 1000 }));
    expect(acquired(out)).toEqual([{ partition: 0, offsets: [[0, 1]] }]);
    // Another member's fetch, waiting for MinBytes, holds nothing: records released meanwhile go to others.
    await k.append(0, 1, 10);
    let waiting: ShareFetchOutput | undefined;
    const pending = k.share.fetcher
      .handle({ ...k.fetch({ minBytes: 5000 }), memberId: 'm2' })
      .then((o) => (waiting = o));
    await settle(k.waiters, () => waiting !== undefined);
    expect(waiting).toBeUndefined();
    const third = await k.share.fetcher.handle({ ...k.fetch({ minBytes: 1, maxWaitMs: 0 }), memberId: 'm3' });
    expect(acquired(third)).toEqual([{ partition: 0, offsets: [[2, 2]] }]);
    k.clock.ms += 500;
    k.waiters.notify('jobs', 0);
    await pending;
    expect(acquired(waiting!)).toEqual([]);
    await k.close();
  });
});

describe('ShareFetch MaxBytes (Kafka PartitionMaxBytesStrategy UNIFORM)', () => {
  it('is split evenly between the partitions read, not taken by the first one', async () => {
    const k = await setup(2);
    for (let p = 0; p < 2; p++) for (let b = 0; b < 4; b++) await k.append(p, 1, 200);
    const size = (await k.storage.read('jobs', 0, 0, 1 << 20, true, false)).batches[0]!.length;
    // A first fetch initializes both share-partitions (it reads only while nothing was acquired).
    await k.share.fetcher.handle(k.fetch({ maxWaitMs: 0, maxBytes: 0 }));
    // Room for 4 batches: 2 from each partition (minnow used to answer 4 from the first one read).
    const out = await k.share.fetcher.handle(k.fetch({ shareSessionEpoch: 1, maxWaitMs: 0, maxBytes: 4 * size }));
    expect(acquired(out)).toEqual([
      { partition: 0, offsets: [[0, 1]] },
      { partition: 1, offsets: [[0, 1]] },
    ]);
    await k.close();
  });

  it('gives one partition all of MaxBytes, past 1 MiB (read 1 MiB at a time)', async () => {
    const k = await setup(1);
    for (let b = 0; b < 4; b++) await k.append(0, 1, 600_000);
    await k.share.fetcher.handle(k.fetch({ maxWaitMs: 0, maxBytes: 0 }));
    // minnow used to read at most 1 MiB of a partition: one of these batches.
    const out = await k.share.fetcher.handle(k.fetch({ shareSessionEpoch: 1, maxWaitMs: 0, maxBytes: 4 << 20 }));
    expect(acquired(out)).toEqual([{ partition: 0, offsets: [[0, 3]] }]);
    await k.close();
  });

  it('leaves a partition at its in-flight limit out of the split: the other one gets all of MaxBytes', async () => {
    const k = await setup(2, { maxInFlight: 4 });
    await k.append(0, 4, 200); // one batch of 4 records: the whole in-flight limit of partition 0
    for (let b = 0; b < 4; b++) await k.append(1, 1, 200);
    const size = (await k.storage.read('jobs', 1, 0, 1 << 20, true, false)).batches[0]!.length;
    await k.share.fetcher.handle(k.fetch({ maxWaitMs: 0, maxBytes: 0 }));
    // Another member holds partition 0's four records: nothing there can be acquired until they settle.
    const holder = await k.share.fetcher.handle({
      ...k.fetch({ maxWaitMs: 0 }),
      memberId: 'm0',
      topics: [{ topicId: k.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
    });
    expect(acquired(holder)).toEqual([{ partition: 0, offsets: [[0, 3]] }]);
    // Room for 4 one-record batches: all of them from partition 1 (Kafka's DelayedShareFetch divides
    // only over acquirable partitions; minnow used to give partition 0 half and answer 2).
    const out = await k.share.fetcher.handle(k.fetch({ shareSessionEpoch: 1, maxWaitMs: 0, maxBytes: 4 * size }));
    expect(acquired(out)).toEqual([{ partition: 1, offsets: [[0, 3]] }]);
    await k.close();
  });

  it('does not read a partition at its in-flight limit (it used to read it, and read all of MaxBytes before that)', async () => {
    const k = await setup(1, { maxInFlight: 2 });
    for (let b = 0; b < 8; b++) await k.append(0, 2, 100_000);
    await k.share.fetcher.handle(k.fetch({ maxWaitMs: 0, maxBytes: 0 }));
    const first = await k.share.fetcher.handle(k.fetch({ shareSessionEpoch: 1, maxWaitMs: 0, maxBytes: 8 << 20 }));
    expect(acquired(first)).toEqual([{ partition: 0, offsets: [[0, 1]] }]);
    const reads = jest.spyOn(k.storage, 'read');
    const second = await k.share.fetcher.handle({
      ...k.fetch({ maxWaitMs: 0, maxBytes: 8 << 20 }),
      memberId: 'm2',
    });
    expect(second.errorCode).toBe(0);
    expect(acquired(second)).toEqual([]);
    expect(reads).not.toHaveBeenCalled(); // Kafka's DelayedShareFetch leaves it out (canAcquireRecords)
    await k.close();
  });
});
