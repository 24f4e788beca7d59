// Contract part: retention by time and by size, the per-call budget, and producer state expiry.
import { ErrorCode } from '../../src/protocol/error-codes';
import { RETENTION_SWEEP_START } from '../../src/storage/storage';
import { baseOffsets, batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';

const KEEP_FOREVER = { retentionMs: -1, retentionBytes: -1 };

export function retentionContract(ctx: ContractContext): void {
  describe('enforceRetention', () => {
    /** Batches of 2 records with maxTimestamp = NOW_MS - age + 1, oldest first. */
    const fill = async (topic: string, agesMs: number[], configs: Record<string, string> = {}) => {
      await ctx.s.createTopic(topic, 1, configs);
      await ctx.s.append(
        [
          part(
            topic,
            0,
            agesMs.map((age) => batch({ records: 2, valueBytes: 100, timestampMs: NOW_MS - age })),
          ),
        ],
        NOW_MS,
      );
      return (await ctx.s.read(topic, 0, 0, 1)).batches[0]!.length;
    };

    it('deletes expired batches from the low end and advances the log start offset', async () => {
      await fill('a', [5000, 4000, 3000, 500, 4500], { 'retention.ms': '2000' });
      const r = await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100);
      expect(r.deletedBatches).toBe(3); // stops at the first live batch even though a later one expired
      expect(r.deletedBytes).toBeGreaterThan(0);
      expect(await ctx.s.offsets('a', 0)).toEqual({ logStartOffset: 6, highWatermark: 10 });
      expect(baseOffsets((await ctx.s.read('a', 0, 6, 1e6)).batches)).toEqual([6, 8]);
      expect((await ctx.s.read('a', 0, 5, 1e6)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
      expect((await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100)).deletedBatches).toBe(0);
    });
    it('deletes every batch once all expired, leaving the log start at the high watermark', async () => {
      await fill('a', [5000, 4000], { 'retention.ms': '1000' });
      await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100);
      expect(await ctx.s.offsets('a', 0)).toEqual({ logStartOffset: 4, highWatermark: 4 });
      expect(await ctx.s.read('a', 0, 4, 1e6)).toMatchObject({ errorCode: 0, batches: [] });
      expect((await ctx.s.append([part('a', 0, [batch()])], NOW_MS))[0]!.baseOffset).toBe(4);
    });
    it('uses the broker defaults unless the topic overrides them; -1 keeps forever', async () => {
      await fill('defaulted', [5000, 100]);
      await fill('forever', [5000, 100], { 'retention.ms': '-1' });
      await ctx.s.enforceRetention(NOW_MS, { retentionMs: 1000, retentionBytes: -1 }, 100);
      expect((await ctx.s.offsets('defaulted', 0))!.logStartOffset).toBe(2);
      expect((await ctx.s.offsets('forever', 0))!.logStartOffset).toBe(0);
    });
    it('shrinks a partition to retention.bytes but keeps the batch ending at the high watermark', async () => {
      const size = await fill('a', [10, 10, 10, 10, 10], { 'retention.bytes': '0' });
      await ctx.s.createTopic('b', 1, { 'retention.bytes': '0' });
      await ctx.s.append([part('b', 0, [batch({ records: 2, valueBytes: 100 })])], NOW_MS);
      const r = await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100);
      expect(r).toEqual({ deletedBatches: 4, deletedBytes: 4 * size });
      expect(await ctx.s.offsets('a', 0)).toEqual({ logStartOffset: 8, highWatermark: 10 });
      expect(await ctx.s.offsets('b', 0)).toEqual({ logStartOffset: 0, highWatermark: 2 });
    });
    it('deletes down to the byte limit, counting appends made since the last call', async () => {
      const size = await fill('a', [10, 10]);
      await ctx.s.alterTopicConfigs('a', { 'retention.bytes': String(3 * size) }, []);
      expect((await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100)).deletedBatches).toBe(0);
      await ctx.s.append(
        [
          part(
            'a',
            0,
            [1, 2, 3].map(() => batch({ records: 2, valueBytes: 100 })),
          ),
        ],
        NOW_MS,
      );
      expect(await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100)).toEqual({
        deletedBatches: 2,
        deletedBytes: 2 * size,
      });
      expect((await ctx.s.offsets('a', 0))!.logStartOffset).toBe(4);
    });
    it('deletes at most maxBatches per call across partitions', async () => {
      await fill('a', [9000, 9000, 9000], { 'retention.ms': '1' });
      await fill('b', [9000, 9000, 9000], { 'retention.ms': '1' });
      expect((await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 2)).deletedBatches).toBe(2);
      expect((await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 2)).deletedBatches).toBe(2);
      expect((await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100)).deletedBatches).toBe(2);
      expect((await ctx.s.offsets('a', 0))!.logStartOffset + (await ctx.s.offsets('b', 0))!.logStartOffset).toBe(12);
    });
    it('visits at most maxPartitions per call, in (topic, partition) order, resuming after the cursor', async () => {
      // Three topics of 2 partitions, created out of name order; every batch expired.
      for (const topic of ['c', 'a', 'b']) {
        await ctx.s.createTopic(topic, 2, { 'retention.ms': '1' });
        for (const partition of [0, 1])
          await ctx.s.append([part(topic, partition, [batch({ records: 2, timestampMs: NOW_MS - 9000 })])], NOW_MS);
      }
      const seen: string[] = [];
      let after = RETENTION_SWEEP_START;
      for (let call = 0; call < 10; call++) {
        const r = await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100, { after, maxPartitions: 4 });
        seen.push(`${r.deletedBatches}:${r.resumeAfter ? `${r.resumeAfter.topic}-${r.resumeAfter.partition}` : 'end'}`);
        if (!r.resumeAfter) break;
        after = r.resumeAfter;
      }
      expect(seen).toEqual(['4:b-1', '2:end']);
      for (const topic of ['a', 'b', 'c']) expect((await ctx.s.offsets(topic, 1))!.logStartOffset).toBe(2);
    });
    it('resumes at the partition where the batch budget ran out', async () => {
      await fill('a', [9000, 9000, 9000], { 'retention.ms': '1' });
      await fill('b', [9000], { 'retention.ms': '1' });
      const window = { after: RETENTION_SWEEP_START, maxPartitions: 10 };
      const first = await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 2, window);
      expect(first).toMatchObject({ deletedBatches: 2, resumeAfter: RETENTION_SWEEP_START });
      const second = await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100, { ...window, after: first.resumeAfter! });
      expect(second.deletedBatches).toBe(2);
      expect(second.resumeAfter).toBeUndefined();
    });
    it('forgets producers whose batches are all gone', async () => {
      await ctx.s.createTopic('a', 1, { 'retention.ms': '1000' });
      const producerId = (await ctx.s.initProducerId(null, NOW_MS)).producerId;
      const old = { producerId, producerEpoch: 0, timestampMs: NOW_MS - 5000 };
      await ctx.s.append(
        [part('a', 0, [batch({ ...old, baseSequence: 0 }), batch({ ...old, baseSequence: 1 })])],
        NOW_MS,
      );
      await ctx.s.enforceRetention(NOW_MS, KEEP_FOREVER, 100);
      // Unknown again, so a restart at sequence 7 is accepted (KIP-360) instead of being out of order.
      const r = await ctx.s.append([part('a', 0, [batch({ producerId, producerEpoch: 0, baseSequence: 7 })])], NOW_MS);
      expect(r[0]).toMatchObject({ errorCode: 0, baseOffset: 2 });
    });
  });
}
