// Contract part: InitProducerId and idempotent appends (KIP-98): duplicates, gaps, epochs.
import { ErrorCode } from '../../src/protocol/error-codes';
import { baseOffsets, batch, NOW_MS, part, resend } from './fixtures';
import type { ContractContext } from './fixtures';

export function producersContract(ctx: ContractContext): void {
  describe('initProducerId', () => {
    it('hands out a new id at epoch 0 for each non-transactional producer', async () => {
      const a = await ctx.s.initProducerId(null, NOW_MS);
      const b = await ctx.s.initProducerId(null, NOW_MS);
      expect(a.producerEpoch).toBe(0);
      expect(b.producerEpoch).toBe(0);
      expect(b.producerId).not.toBe(a.producerId);
      expect(a.producerId).toBeGreaterThanOrEqual(0);
    });
    it('bumps the epoch of a transactional id, and moves to a new id before the epoch runs out', async () => {
      const first = await ctx.s.initProducerId('tx', NOW_MS);
      expect(first.producerEpoch).toBe(0);
      expect(await ctx.s.initProducerId('tx', NOW_MS)).toEqual({ producerId: first.producerId, producerEpoch: 1 });
      expect((await ctx.s.initProducerId('other', NOW_MS)).producerId).not.toBe(first.producerId);
      // Where the engine offers it, skip to near the end (see ContractHooks); else walk every epoch.
      if (ctx.hooks?.fastForwardEpoch) await ctx.hooks.fastForwardEpoch(ctx.s, 'tx', 32764);
      let last = { producerId: first.producerId, producerEpoch: 1 };
      while (last.producerId === first.producerId) last = await ctx.s.initProducerId('tx', NOW_MS);
      expect(last.producerEpoch).toBe(0); // after epoch 32766: Short.MAX_VALUE is never handed out
      expect(await ctx.s.initProducerId('tx', NOW_MS)).toEqual({ producerId: last.producerId, producerEpoch: 1 });
    });
  });

  describe('idempotent append', () => {
    const setup = async () => {
      await ctx.s.createTopic('a', 1, {});
      return (await ctx.s.initProducerId(null, NOW_MS)).producerId;
    };
    /** Six batches of 2 records, sequences 0-1, 2-3, ... 10-11, at offsets 0, 2, ... 10. */
    const sendSix = async (producerId: number) => {
      const sent = Array.from({ length: 6 }, (_, i) =>
        batch({ records: 2, producerId, producerEpoch: 0, baseSequence: 2 * i }),
      );
      for (const b of sent) await ctx.s.append([part('a', 0, [b])], NOW_MS);
      return sent;
    };

    it('answers a duplicate of each of the last 5 batches with its original offset and stores nothing', async () => {
      const sent = await sendSix(await setup());
      for (let i = 1; i < 6; i++) {
        const [r] = await ctx.s.append([part('a', 0, [resend(sent[i]!)])], NOW_MS);
        expect(r).toMatchObject({ errorCode: 0, baseOffset: 2 * i });
      }
      expect((await ctx.s.offsets('a', 0))!.highWatermark).toBe(12);
      expect(baseOffsets((await ctx.s.read('a', 0, 0, 1e6)).batches)).toEqual([0, 2, 4, 6, 8, 10]);
      // The oldest is beyond the 5 remembered: its sequence no longer follows, so it is out of order.
      expect((await ctx.s.append([part('a', 0, [resend(sent[0]!)])], NOW_MS))[0]!.errorCode).toBe(
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      );
    });
    it('rejects a sequence gap with 45 and stores nothing of that partition append', async () => {
      const producerId = await setup();
      await sendSix(producerId);
      const next = batch({ producerId, producerEpoch: 0, baseSequence: 12 });
      const gap = batch({ producerId, producerEpoch: 0, baseSequence: 14 });
      const [r] = await ctx.s.append([part('a', 0, [next, gap])], NOW_MS);
      expect(r).toMatchObject({ errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1, logStartOffset: 0 });
      expect(r!.errorMessage).toMatch(/sequence 14, expected 13/);
      expect((await ctx.s.offsets('a', 0))!.highWatermark).toBe(12);
      // The rejected batches were left as sent, so the producer can retry the good one.
      expect((await ctx.s.append([part('a', 0, [next])], NOW_MS))[0]).toMatchObject({ errorCode: 0, baseOffset: 12 });
    });
    it('rejects an older epoch with 47 and accepts a new epoch starting at sequence 0 only', async () => {
      const producerId = await setup();
      await ctx.s.append([part('a', 0, [batch({ producerId, producerEpoch: 1, baseSequence: 0 })])], NOW_MS);
      const old = await ctx.s.append(
        [part('a', 0, [batch({ producerId, producerEpoch: 0, baseSequence: 1 })])],
        NOW_MS,
      );
      expect(old[0]!.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      const badStart = await ctx.s.append(
        [part('a', 0, [batch({ producerId, producerEpoch: 2, baseSequence: 5 })])],
        NOW_MS,
      );
      expect(badStart[0]!.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
      const fresh = await ctx.s.append(
        [part('a', 0, [batch({ producerId, producerEpoch: 2, baseSequence: 0 })])],
        NOW_MS,
      );
      expect(fresh[0]).toMatchObject({ errorCode: 0, baseOffset: 1 });
      expect((await ctx.s.offsets('a', 0))!.highWatermark).toBe(2);
    });
    it('keeps sequences per partition and per producer', async () => {
      await ctx.s.createTopic('a', 2, {});
      const p1 = (await ctx.s.initProducerId(null, NOW_MS)).producerId;
      const p2 = (await ctx.s.initProducerId(null, NOW_MS)).producerId;
      const r = await ctx.s.append(
        [
          part('a', 0, [batch({ producerId: p1, producerEpoch: 0, baseSequence: 0 })]),
          part('a', 1, [batch({ producerId: p1, producerEpoch: 0, baseSequence: 0 })]),
          part('a', 0, [batch({ producerId: p2, producerEpoch: 0, baseSequence: 0 })]),
          part('a', 0, [batch({ producerId: p1, producerEpoch: 0, baseSequence: 1 })]),
        ],
        NOW_MS,
      );
      expect(r.map((x) => [x.errorCode, x.baseOffset])).toEqual([
        [0, 0],
        [0, 0],
        [0, 1],
        [0, 2],
      ]);
    });
    it('answers a duplicate inside the same call and an all-duplicate append without a LogAppendTime', async () => {
      await ctx.s.createTopic('a', 1, { 'message.timestamp.type': 'LogAppendTime' });
      const producerId = (await ctx.s.initProducerId(null, NOW_MS)).producerId;
      const b = batch({ producerId, producerEpoch: 0, baseSequence: 0 });
      const again = resend(b);
      const r = await ctx.s.append([part('a', 0, [b], true), part('a', 0, [again], true)], NOW_MS);
      expect(r.map((x) => [x.errorCode, x.baseOffset, x.logAppendTimeMs])).toEqual([
        [0, 0, NOW_MS],
        [0, 0, -1],
      ]);
      expect((await ctx.s.offsets('a', 0))!.highWatermark).toBe(1);
    });
  });
}
