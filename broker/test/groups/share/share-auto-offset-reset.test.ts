// share.auto.offset.reset (KIP-932, by_duration from KIP-1106): the value as Kafka's validator
// reads it (case-insensitive; java.time.Duration.parse's format), and where a share-partition the
// group never read starts with by_duration: the first record at or after now - duration.
import { javaDurationMs, parseShareAutoOffsetReset } from '../../../src/groups/share/share-auto-offset-reset';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { groupConfigResource } from '../../../src/groups/group-configs';
import { openStorage } from '../../../src/storage/open-storage';
import { batch, part, NOW_MS } from '../../storage/fixtures';

describe('javaDurationMs (java.time.Duration.parse)', () => {
  it.each([
    ['PT1H', 3_600_000],
    ['P1D', 86_400_000],
    ['pt30m', 1_800_000],
    ['PT0.5S', 500],
    ['PT1,25S', 1250],
    ['P1DT2H3M4.005S', 93_784_005],
    ['PT-1.5S', -1500],
    ['-PT1M', -60_000],
    ['PT0S', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(javaDurationMs(text)).toBe(ms);
  });

  it.each(['', 'P', 'PT', '1H', 'P1W', 'P1M', 'P1Y', 'PT1H30', 'PT1.5H', 'P T1H'])('refuses %j', (text) => {
    expect(javaDurationMs(text)).toBeUndefined();
  });
});

describe('parseShareAutoOffsetReset', () => {
  it('reads latest, earliest and by_duration in any case', () => {
    expect(parseShareAutoOffsetReset('latest')).toEqual({ kind: 'latest' });
    expect(parseShareAutoOffsetReset('EARLIEST')).toEqual({ kind: 'earliest' });
    expect(parseShareAutoOffsetReset('by_duration:PT1H')).toEqual({ kind: 'by_duration', durationMs: 3_600_000 });
    expect(parseShareAutoOffsetReset('BY_DURATION:p1d')).toEqual({ kind: 'by_duration', durationMs: 86_400_000 });
  });

  it('refuses a negative or unparsable duration and any other value, naming the value', () => {
    for (const v of ['by_duration:-PT1H', 'by_duration:P1W', 'by_duration:', 'none', 'smallest']) {
      const parsed = parseShareAutoOffsetReset(v);
      expect(parsed).toEqual({
        error: expect.stringContaining(`Invalid value ${v} for configuration share.auto.offset.reset`),
      });
    }
    expect(parseShareAutoOffsetReset('by_duration:-PT1H')).toEqual({
      error: expect.stringContaining('Negative duration'),
    });
  });
});

describe('a share-partition started by_duration', () => {
  /** A topic of one partition holding one-record batches at the given ages (ms before NOW_MS). */
  async function groupReading(ages: number[], reset: string) {
    const storage = await openStorage('memory://');
    const { topicId } = await storage.createTopic('jobs', 1, {});
    for (const age of ages)
      await storage.append([part('jobs', 0, [batch({ records: 1, timestampMs: NOW_MS - age })])], NOW_MS);
    await storage.alterBrokerConfigs(groupConfigResource('g'), { 'share.auto.offset.reset': reset }, []);
    const share = new ShareGroups({
      storage,
      logger: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never,
      now: () => NOW_MS,
      fetchWaiters: { wait: () => Promise.resolve(), notify: () => {} },
    });
    const fetch = (epoch: number): ShareFetchInput => ({
      groupId: 'g',
      memberId: 'm',
      shareSessionEpoch: epoch,
      maxWaitMs: 0,
      maxBytes: 1 << 20,
      maxRecords: 100,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      forgotten: [],
      mayRead: () => true,
      fetch: true,
    });
    const acquired = async (epoch: number) =>
      (await share.fetcher.handle(fetch(epoch))).partitions.flatMap((p) => p.acquiredRecords);
    const done = async () => {
      await share.writesSettled();
      share.close();
      await storage.close();
    };
    return { storage, acquired, done };
  }

  it('starts at the first record no older than the duration', async () => {
    // Offsets 0-1 are older than 60 s, 2-3 younger.
    const g = await groupReading([300_000, 90_000, 45_000, 1_000], 'by_duration:PT60S');
    expect(await g.acquired(0)).toEqual([{ firstOffset: 2n, lastOffset: 3n, deliveryCount: 1 }]);
    await g.done();
  });

  it('starts at the end when every record is older, and delivers what comes next', async () => {
    const g = await groupReading([300_000, 200_000], 'by_duration:PT1M');
    expect(await g.acquired(0)).toEqual([]);
    await g.storage.append([part('jobs', 0, [batch({ records: 1, timestampMs: NOW_MS })])], NOW_MS);
    expect(await g.acquired(1)).toEqual([{ firstOffset: 2n, lastOffset: 2n, deliveryCount: 1 }]);
    await g.done();
  });

  it('takes every record when the duration reaches past the oldest', async () => {
    const g = await groupReading([300_000, 200_000], 'by_duration:P1D');
    expect(await g.acquired(0)).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
    await g.done();
  });
});
