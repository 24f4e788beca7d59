import { encodeRecordBatch, readBatchHeader } from '../../../src/protocol/record-batch';
import { consumerLag } from '../../../src/server/metrics/consumer-lag';
import { openStorage } from '../../../src/storage/open-storage';
import type { Storage } from '../../../src/storage/storage';
import { loopTurnsDuring } from '../../support/loop-turns';

/** Appends `n` one-record batches to topic/partition. */
async function produce(storage: Storage, topic: string, partition: number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const data = encodeRecordBatch({ records: [{ value: Buffer.from(`v${i}`) }] });
    await storage.append(
      [{ topic, partition, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false }],
      0,
    );
  }
}

const commit = (storage: Storage, group: string, topic: string, partition: number, offset: number) =>
  storage.commitOffsets(group, [{ topic, partition, offset, leaderEpoch: -1, metadata: null }], 0);

describe('consumerLag', () => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await openStorage('memory://');
    await storage.createTopic('orders', 2, {});
    await storage.createTopic('audit', 1, {});
    await produce(storage, 'orders', 0, 10);
    await produce(storage, 'orders', 1, 4);
    await produce(storage, 'audit', 0, 6);
  });
  afterEach(() => storage.close());

  it('is 0 with max 0 without groups', async () => {
    expect(await consumerLag(storage, 10)).toEqual({ groups: [], max: 0, groupCount: 0 });
  });

  it("sums high watermark - committed offset over each group's committed partitions", async () => {
    await commit(storage, 'billing', 'orders', 0, 3); // 7 behind
    await commit(storage, 'billing', 'orders', 1, 4); // caught up
    await commit(storage, 'billing', 'audit', 0, 1); // 5 behind
    await commit(storage, 'search', 'orders', 0, 9); // 1 behind
    const lag = await consumerLag(storage, 10);
    expect(lag.groups).toEqual([
      { group: 'billing', lag: 12 },
      { group: 'search', lag: 1 },
    ]);
    expect(lag.max).toBe(12);
    expect(lag.groupCount).toBe(2);
  });

  it('ignores partitions of topics that do not exist and negative offsets, and never reports a negative lag', async () => {
    await commit(storage, 'g', 'orders', 0, 2); // 8 behind
    await commit(storage, 'g', 'audit', 0, 50); // past the end (topic made anew): 0, not -44
    await commit(storage, 'g', 'orders', 1, -1); // no position
    await commit(storage, 'gone', 'ghost', 0, 0); // a topic this storage does not have
    expect((await consumerLag(storage, 10)).groups).toEqual([
      { group: 'g', lag: 8 },
      { group: 'gone', lag: 0 },
    ]);
  });

  it('names only the `limit` most lagging groups, but counts all of them in max and groupCount', async () => {
    await commit(storage, 'a', 'orders', 0, 9); // 1
    await commit(storage, 'b', 'orders', 0, 0); // 10
    await commit(storage, 'c', 'orders', 0, 5); // 5
    await commit(storage, 'd', 'orders', 0, 5); // 5
    const lag = await consumerLag(storage, 2);
    expect(lag.groups).toEqual([
      { group: 'b', lag: 10 },
      { group: 'c', lag: 5 },
    ]);
    expect(lag.max).toBe(10);
    expect(lag.groupCount).toBe(4);
  });

  it('yields to the event loop every LAG_OFFSETS_PER_TURN committed offsets, so a big scrape runs in slices', async () => {
    for (let g = 0; g < 200; g++) {
      await storage.commitOffsets(
        `group-${g}`,
        [0, 1].map((partition) => ({ topic: 'orders', partition, offset: 1, leaderEpoch: -1, metadata: null })),
        0,
      );
    }
    // 200 groups x (2 offsets + 1): 600 reads
    const { result: lag, turns } = await loopTurnsDuring(() => consumerLag(storage, 10, 30));
    expect(lag.groupCount).toBe(200);
    expect(lag.max).toBe(9 + 3);
    expect(turns).toBeGreaterThanOrEqual(600 / 30 - 1);
  });
});
