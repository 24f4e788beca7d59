// Contract part: append (offset assignment, LogAppendTime), read (KIP-74, ranges), timestamp
// lookups and DeleteRecords.
import { ErrorCode } from '../../src/protocol/error-codes';
import { Attribute, PARTITION_LEADER_EPOCH, readBatchHeader, verifyBatchCrc } from '../../src/protocol/record-batch';
import { baseOffsets, batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';

export function recordsContract(ctx: ContractContext): void {
  describe('append', () => {
    it('assigns offsets per partition across several partitions in one call', async () => {
      await ctx.s.createTopic('a', 2, {});
      await ctx.s.createTopic('b', 1, {});
      const r1 = await ctx.s.append(
        [part('a', 0, [batch({ records: 3 })]), part('a', 1, [batch()]), part('b', 0, [batch({ records: 2 })])],
        NOW_MS,
      );
      expect(r1.map((r) => [r.errorCode, r.baseOffset])).toEqual([
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
      expect(r1[0]).toEqual({
        errorCode: 0,
        baseOffset: 0,
        logAppendTimeMs: -1,
        logStartOffset: 0,
        errorMessage: null,
      });
      const r2 = await ctx.s.append([part('a', 0, [batch()]), part('b', 0, [batch()])], NOW_MS);
      expect(r2.map((r) => r.baseOffset)).toEqual([3, 2]);
      expect(await ctx.s.offsets('a', 0)).toEqual({ logStartOffset: 0, highWatermark: 4 });
      expect(await ctx.s.offsets('a', 1)).toEqual({ logStartOffset: 0, highWatermark: 1 });
      expect(await ctx.s.offsets('b', 0)).toEqual({ logStartOffset: 0, highWatermark: 3 });
    });
    it('chains several batches of one partition, and two parts for the same partition in one call', async () => {
      await ctx.s.createTopic('a', 1, {});
      const r = await ctx.s.append(
        [part('a', 0, [batch({ records: 2 }), batch({ records: 3 })]), part('a', 0, [batch()])],
        NOW_MS,
      );
      expect(r.map((x) => x.baseOffset)).toEqual([0, 5]);
      expect(baseOffsets((await ctx.s.read('a', 0, 0, 1e6)).batches)).toEqual([0, 2, 5]);
      expect((await ctx.s.offsets('a', 0))!.highWatermark).toBe(6);
    });
    it('answers an unknown topic or partition with error 3 and still appends the others', async () => {
      await ctx.s.createTopic('a', 1, {});
      const r = await ctx.s.append(
        [part('nope', 0, [batch()]), part('a', 1, [batch()]), part('a', 0, [batch()])],
        NOW_MS,
      );
      expect(r.map((x) => x.errorCode)).toEqual([
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        0,
      ]);
      expect(r[0]!.errorMessage).toMatch(/nope-0/);
      expect((await ctx.s.offsets('a', 0))!.highWatermark).toBe(1);
    });
    it('stores the batch with its offset and leader epoch rewritten and the CRC still valid', async () => {
      await ctx.s.createTopic('a', 1, {});
      await ctx.s.append([part('a', 0, [batch()])], NOW_MS);
      const b = batch({ records: 2 });
      const before = Buffer.from(b.data);
      await ctx.s.append([part('a', 0, [b])], NOW_MS);
      b.data.fill(0); // the stored copy must not share memory with the request frame
      const stored = (await ctx.s.read('a', 0, 1, 1e6)).batches[0]!;
      expect(readBatchHeader(stored).baseOffset).toBe(1n);
      expect(stored.readInt32BE(PARTITION_LEADER_EPOCH)).toBe(0);
      expect(verifyBatchCrc(stored)).toBe(true);
      expect(stored.subarray(17)).toEqual(before.subarray(17)); // CRC onwards: untouched
    });
    it('stamps LogAppendTime: timestamp type bit, maxTimestamp = now, CRC recomputed', async () => {
      await ctx.s.createTopic('a', 1, { 'message.timestamp.type': 'LogAppendTime' });
      const r = await ctx.s.append([part('a', 0, [batch({ records: 2, timestampMs: 5 })], true)], NOW_MS);
      expect(r[0]!.logAppendTimeMs).toBe(NOW_MS);
      const stored = (await ctx.s.read('a', 0, 0, 1e6)).batches[0]!;
      const h = readBatchHeader(stored);
      expect(h.attributes & Attribute.TimestampType).toBe(Attribute.TimestampType);
      expect(h.maxTimestamp).toBe(BigInt(NOW_MS));
      expect(h.baseTimestamp).toBe(5n);
      expect(verifyBatchCrc(stored)).toBe(true);
      expect((await ctx.s.batchWithMaxTimestamp('a', 0))!.maxTimestamp).toBe(NOW_MS);
    });
  });

  describe('read', () => {
    // Five batches of 2 records: offsets 0-1, 2-3, 4-5, 6-7, 8-9.
    const fill = async () => {
      await ctx.s.createTopic('a', 1, {});
      await ctx.s.append(
        [
          part(
            'a',
            0,
            Array.from({ length: 5 }, () => batch({ records: 2, valueBytes: 100 })),
          ),
        ],
        NOW_MS,
      );
      return (await ctx.s.read('a', 0, 0, 1e6)).batches[0]!.length;
    };
    it('returns the batch holding the fetch offset and the ones after it', async () => {
      await fill();
      const r = await ctx.s.read('a', 0, 5, 1e6);
      expect(r).toMatchObject({ errorCode: 0, highWatermark: 10, logStartOffset: 0 });
      expect(baseOffsets(r.batches)).toEqual([4, 6, 8]);
    });
    it('stops at maxBytes with whole batches but always returns the first (KIP-74)', async () => {
      const size = await fill();
      expect(baseOffsets((await ctx.s.read('a', 0, 0, 1)).batches)).toEqual([0]);
      expect(baseOffsets((await ctx.s.read('a', 0, 0, 2 * size)).batches)).toEqual([0, 2]);
      expect(baseOffsets((await ctx.s.read('a', 0, 0, 3 * size - 1)).batches)).toEqual([0, 2]);
      expect(baseOffsets((await ctx.s.read('a', 0, 9, 0)).batches)).toEqual([8]);
    });
    it('without minOneBatch the first batch must fit too (a fetch that already has data, KIP-74)', async () => {
      const size = await fill();
      expect(await ctx.s.read('a', 0, 0, size - 1, false)).toMatchObject({
        errorCode: 0,
        highWatermark: 10,
        logStartOffset: 0,
        batches: [],
      });
      expect((await ctx.s.read('a', 0, 0, 0, false)).batches).toEqual([]);
      expect(baseOffsets((await ctx.s.read('a', 0, 0, 2 * size, false)).batches)).toEqual([0, 2]);
    });
    it('returns nothing and no error at the high watermark, OFFSET_OUT_OF_RANGE past it', async () => {
      await fill();
      expect(await ctx.s.read('a', 0, 10, 1e6)).toEqual({
        errorCode: 0,
        highWatermark: 10,
        logStartOffset: 0,
        lastStableOffset: 10,
        batches: [],
        abortedTransactions: [],
      });
      expect(await ctx.s.read('a', 0, 11, 1e6)).toMatchObject({
        errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
        highWatermark: 10,
        batches: [],
      });
      expect((await ctx.s.read('a', 0, -1, 1e6)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    });
    it('answers 0 on an empty partition at 0 and 3 for unknown topics or partitions', async () => {
      await ctx.s.createTopic('a', 1, {});
      expect(await ctx.s.read('a', 0, 0, 100)).toEqual({
        errorCode: 0,
        highWatermark: 0,
        logStartOffset: 0,
        lastStableOffset: 0,
        batches: [],
        abortedTransactions: [],
      });
      expect((await ctx.s.read('a', 1, 0, 100)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect((await ctx.s.read('nope', 0, 0, 100)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    });
  });

  describe('timestamps', () => {
    it('finds the first batch at or after a time, and the batch with the largest timestamp', async () => {
      await ctx.s.createTopic('a', 1, {});
      const times = [1000, 3000, 2000, 5000, 4000];
      await ctx.s.append(
        [
          part(
            'a',
            0,
            times.map((t) => batch({ records: 2, timestampMs: t })),
          ),
        ],
        NOW_MS,
      );
      // maxTimestamp of each batch is t + 1 (two records, 1 ms apart).
      expect(await ctx.s.batchForTimestamp('a', 0, 0)).toMatchObject({
        baseOffset: 0,
        lastOffset: 1,
        maxTimestamp: 1001,
      });
      expect((await ctx.s.batchForTimestamp('a', 0, 2500))!.baseOffset).toBe(2);
      expect((await ctx.s.batchForTimestamp('a', 0, 4001))!.baseOffset).toBe(6);
      expect(await ctx.s.batchForTimestamp('a', 0, 5002)).toBeUndefined();
      const max = (await ctx.s.batchWithMaxTimestamp('a', 0))!;
      expect(max).toMatchObject({ baseOffset: 6, lastOffset: 7, maxTimestamp: 5001 });
      expect(readBatchHeader(max.data).baseOffset).toBe(6n);
      expect(await ctx.s.batchWithMaxTimestamp('a', 1)).toBeUndefined();
      await ctx.s.createTopic('empty', 1, {});
      expect(await ctx.s.batchWithMaxTimestamp('empty', 0)).toBeUndefined();
      expect(await ctx.s.batchForTimestamp('empty', 0, 0)).toBeUndefined();
    });
  });

  describe('deleteRecords', () => {
    const fill = async () => {
      await ctx.s.createTopic('a', 1, {});
      await ctx.s.append(
        [
          part(
            'a',
            0,
            Array.from({ length: 5 }, () => batch({ records: 2 })),
          ),
        ],
        NOW_MS,
      );
    };
    it('deletes whole batches below the offset and moves the log start to it', async () => {
      await fill();
      expect(await ctx.s.deleteRecords('a', 0, 3)).toEqual({ errorCode: 0, logStartOffset: 3, highWatermark: 10 });
      expect(await ctx.s.offsets('a', 0)).toEqual({ logStartOffset: 3, highWatermark: 10 });
      expect((await ctx.s.read('a', 0, 2, 1e6)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
      expect(baseOffsets((await ctx.s.read('a', 0, 3, 1e6)).batches)).toEqual([2, 4, 6, 8]); // 2-3 holds offset 3
      expect((await ctx.s.deleteRecords('a', 0, 1)).logStartOffset).toBe(3); // never moves back
      expect((await ctx.s.append([part('a', 0, [batch()])], NOW_MS))[0]).toMatchObject({
        baseOffset: 10,
        logStartOffset: 3,
      });
    });
    it('counts the stored bytes per partition, less after a deletion (DescribeLogDirs sizes)', async () => {
      await fill();
      const all = (await ctx.s.read('a', 0, 0, 1e9)).batches.reduce((n, b) => n + b.length, 0);
      expect(all).toBeGreaterThan(0);
      expect(await ctx.s.partitionBytes('a', 0)).toBe(all);
      await ctx.s.deleteRecords('a', 0, 4);
      expect(await ctx.s.partitionBytes('a', 0)).toBe(
        (await ctx.s.read('a', 0, 4, 1e9)).batches.reduce((n, b) => n + b.length, 0),
      );
      expect(await ctx.s.partitionBytes('a', 0)).toBeLessThan(all);
      expect(await ctx.s.partitionBytes('a', 1)).toBeUndefined();
      expect(await ctx.s.partitionBytes('nope', 0)).toBeUndefined();
    });
    it('treats -1 as the high watermark and rejects offsets past it', async () => {
      await fill();
      expect(await ctx.s.deleteRecords('a', 0, 11)).toMatchObject({
        errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
        logStartOffset: 0,
      });
      expect(await ctx.s.deleteRecords('a', 0, -1)).toEqual({ errorCode: 0, logStartOffset: 10, highWatermark: 10 });
      expect(await ctx.s.read('a', 0, 10, 1e6)).toMatchObject({ errorCode: 0, batches: [] });
      expect(await ctx.s.batchWithMaxTimestamp('a', 0)).toBeUndefined();
      expect((await ctx.s.deleteRecords('nope', 0, 0)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    });
  });
}
