// A retention run sweeps every partition in steps of a bounded number of partitions, yielding to
// the event loop between steps (issue 29: one call over every partition was one long transaction).
import { encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import { sweepRetention } from '../../src/server/retention-sweep-task';
import { openStorage } from '../../src/storage/open-storage';
import type { RetentionResult, RetentionWindow, Storage } from '../../src/storage/storage';
import { loopTurnsDuring } from '../support/loop-turns';

const NOW = 1_700_000_000_000;

describe('sweepRetention', () => {
  let storage: Storage;
  beforeEach(async () => {
    storage = await openStorage('memory://');
    for (let t = 0; t < 25; t++) {
      await storage.createTopic(`topic-${t}`, 2, { 'retention.ms': '1000' });
      for (const partition of [0, 1]) {
        const data = encodeRecordBatch({ records: [{ value: Buffer.from('old'), timestamp: BigInt(NOW - 5000) }] });
        await storage.append(
          [
            {
              topic: `topic-${t}`,
              partition,
              batches: [{ header: readBatchHeader(data), data }],
              logAppendTime: false,
            },
          ],
          NOW,
        );
      }
    }
  });
  afterEach(() => storage.close());

  it('visits every partition once, at most partitionsPerStep per storage call, the loop turning between calls', async () => {
    const windows: RetentionWindow[] = [];
    const enforce = storage.enforceRetention.bind(storage);
    jest.spyOn(storage, 'enforceRetention').mockImplementation((nowMs, defaults, maxBatches, window) => {
      windows.push(window!);
      return enforce(nowMs, defaults, maxBatches, window);
    });
    const { result: r, turns } = await loopTurnsDuring(() =>
      sweepRetention(storage, {
        nowMs: NOW,
        defaults: { retentionMs: -1, retentionBytes: -1 },
        step: (call: () => Promise<RetentionResult>) => call(),
        stopped: () => false,
        partitionsPerStep: 8,
      }),
    );
    expect(r).toMatchObject({ deletedBatches: 50, steps: 7 }); // 50 partitions, 8 per step
    expect(windows.every((w) => w.maxPartitions === 8)).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(6);
    expect(await storage.offsets('topic-24', 1)).toMatchObject({ logStartOffset: 1 });
  });

  it('ends after the current step once the broker is stopping', async () => {
    const r = await sweepRetention(storage, {
      nowMs: NOW,
      defaults: { retentionMs: -1, retentionBytes: -1 },
      step: (call: () => Promise<RetentionResult>) => call(),
      stopped: () => true,
      partitionsPerStep: 8,
    });
    expect(r).toMatchObject({ deletedBatches: 8, steps: 1 });
  });
});
