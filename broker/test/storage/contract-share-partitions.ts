// Contract part: share-partition delivery state (storage/share-store.ts, KIP-932): replaced whole,
// one row per (group, topic id, partition), offsets past 2^31 kept; persistent engines keep it
// across a reopen.
import type { StoredSharePartition } from '../../src/storage/storage';
import type { ContractContext } from './fixtures';

const state: StoredSharePartition = {
  startOffset: 3_000_000_000,
  endOffset: 3_000_000_004,
  records: [
    { offset: 3_000_000_000, state: 0, deliveryCount: 2 },
    { offset: 3_000_000_001, state: 2, deliveryCount: 1 },
    { offset: 3_000_000_003, state: 4, deliveryCount: 5 },
  ],
};

export function sharePartitionsContract(ctx: ContractContext): void {
  describe('share-partition state', () => {
    it('stores a share-partition, replaces it whole and deletes it', async () => {
      expect(await ctx.s.sharePartition('g', 'topic-id', 0)).toBeUndefined();
      await ctx.s.storeSharePartition('g', 'topic-id', 0, state);
      await ctx.s.storeSharePartition('g', 'topic-id', 1, { startOffset: 7, endOffset: 7, records: [] });
      await ctx.s.storeSharePartition('other', 'topic-id', 0, { startOffset: 1, endOffset: 1, records: [] });
      expect(await ctx.s.sharePartition('g', 'topic-id', 0)).toEqual(state);
      const next = { startOffset: 3_000_000_002, endOffset: 3_000_000_004, records: [state.records[2]!] };
      await ctx.s.storeSharePartition('g', 'topic-id', 0, next);
      expect(await ctx.s.sharePartition('g', 'topic-id', 0)).toEqual(next);
      await ctx.s.storeSharePartition('g', 'topic-id', 0, null);
      expect(await ctx.s.sharePartition('g', 'topic-id', 0)).toBeUndefined();
      expect((await ctx.s.sharePartition('g', 'topic-id', 1))?.startOffset).toBe(7);
      expect((await ctx.s.sharePartition('other', 'topic-id', 0))?.startOffset).toBe(1);
    });

    it("lists one group's share-partitions by topic id, then partition", async () => {
      await ctx.s.storeSharePartition('g', 'topic-b', 1, { startOffset: 5, endOffset: 6, records: [] });
      await ctx.s.storeSharePartition('g', 'topic-a', 2, state);
      await ctx.s.storeSharePartition('g', 'topic-a', 0, { startOffset: 1, endOffset: 1, records: [] });
      await ctx.s.storeSharePartition('other', 'topic-a', 0, { startOffset: 9, endOffset: 9, records: [] });
      expect(await ctx.s.sharePartitionsOfGroup('g')).toEqual([
        { topicId: 'topic-a', partition: 0, state: { startOffset: 1, endOffset: 1, records: [] } },
        { topicId: 'topic-a', partition: 2, state },
        { topicId: 'topic-b', partition: 1, state: { startOffset: 5, endOffset: 6, records: [] } },
      ]);
      expect(await ctx.s.sharePartitionsOfGroup('none')).toEqual([]);
    });

    if (ctx.reopen) {
      it('keeps a share-partition across close and reopen', async () => {
        await ctx.s.storeSharePartition('g', 'topic-id', 0, state);
        await ctx.reopen!();
        expect(await ctx.s.sharePartition('g', 'topic-id', 0)).toEqual(state);
      });
    }
  });
}
