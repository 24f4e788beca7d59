// Contract part: transaction version 2 (KIP-890 part 2) in storage: endTransaction's 'next' bump
// moves the epoch at every transaction end, the markers carry the new epoch (so a batch of the
// ended transaction arriving late is refused), and when the epoch reaches 32767 the id moves on to a
// new producer id at epoch 0 after the markers (Kafka's prepareAbortOrCommit / prepareComplete).
import { ErrorCode } from '../../src/protocol/error-codes';
import { decodeRecords, readBatchHeader } from '../../src/protocol/record-batch';
import type { TransactionInfo } from '../../src/storage/storage';
import { batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';

const LATER = NOW_MS + 5000;

const txBatch = (info: { producerId: number; producerEpoch: number }, baseSequence: number) =>
  batch({ producerId: info.producerId, producerEpoch: info.producerEpoch, baseSequence, transactional: true });

export function transactionsV2Contract(ctx: ContractContext): void {
  describe('transactions, version 2 (an epoch bump per transaction)', () => {
    const s = () => ctx.s;
    const begin = async (): Promise<TransactionInfo> => {
      await s().createTopic('t', 2, {});
      await s().initTransaction('tx', 60000, NOW_MS);
      return s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], NOW_MS + 1);
    };
    /** The producer id, epoch and type (0 ABORT, 1 COMMIT) of the marker at `offset` of t-0. */
    const markerAt = async (offset: number) => {
      const data = (await s().read('t', 0, offset, 1e9, true, false)).batches[0]!;
      const h = readBatchHeader(data);
      return {
        offset: Number(h.baseOffset),
        producerId: Number(h.producerId),
        producerEpoch: h.producerEpoch,
        type: decodeRecords(data)[0]!.key!.readInt16BE(2),
      };
    };

    it("a commit with the 'next' bump writes its markers at the new epoch; the ended epoch is refused after", async () => {
      const info = await begin();
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS); // 0
      const ended = await s().endTransaction('tx', true, LATER, 'next'); // marker at 1
      expect(ended.info).toMatchObject({
        producerId: info.producerId,
        producerEpoch: 1,
        lastProducerId: info.producerId,
        lastProducerEpoch: 0,
        state: 'CompleteCommit',
        partitions: [],
      });
      expect(await markerAt(1)).toEqual({ offset: 1, producerId: info.producerId, producerEpoch: 1, type: 1 });
      expect(await s().transaction('tx')).toMatchObject({ producerEpoch: 1, state: 'CompleteCommit' });
      // The next transaction: the new epoch from sequence 0.
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], LATER);
      const late = (await s().append([part('t', 0, [txBatch(info, 1)])], LATER))[0]!;
      expect(late.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      const next = { producerId: info.producerId, producerEpoch: 1 };
      expect((await s().append([part('t', 0, [txBatch(next, 0)])], LATER))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 2,
      });
    });

    it('an abort with nothing added bumps the epoch and writes no marker', async () => {
      await s().createTopic('t', 2, {});
      const info = await s().initTransaction('tx', 60000, NOW_MS);
      const ended = await s().endTransaction('tx', false, LATER, 'next');
      expect(ended).toEqual({
        info: expect.objectContaining({ producerId: info.producerId, producerEpoch: 1, state: 'CompleteAbort' }),
        markedPartitions: [],
      });
      expect((await s().offsets('t', 0))!.highWatermark).toBe(0);
    });

    it('at epoch 32766 the markers carry 32767, then the id goes on with a new producer id at epoch 0', async () => {
      const info = await begin();
      // Where the engine offers it, skip to near the end (ContractHooks); else walk the epochs.
      if (ctx.hooks?.fastForwardEpoch) await ctx.hooks.fastForwardEpoch(s(), 'tx', 32765);
      let t = (await s().transaction('tx'))!;
      while (t.producerEpoch < 32765) t = (await s().endTransaction('tx', false, NOW_MS, 'next')).info;
      expect((await s().endTransaction('tx', false, NOW_MS, 'next')).info.producerEpoch).toBe(32766);
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], LATER);
      const at = { producerId: info.producerId, producerEpoch: 32766 };
      const data = (await s().append([part('t', 0, [txBatch(at, 0)])], LATER))[0]!;
      expect(data.errorCode).toBe(0);
      const ended = await s().endTransaction('tx', true, LATER, 'next');
      expect(ended.info).toMatchObject({
        producerEpoch: 0,
        lastProducerId: info.producerId,
        lastProducerEpoch: 32766,
        state: 'CompleteCommit',
      });
      expect(ended.info.producerId).not.toBe(info.producerId);
      expect(await markerAt(data.baseOffset + 1)).toMatchObject({ producerId: info.producerId, producerEpoch: 32767 });
      // The new producer id writes the next transaction.
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], LATER);
      expect((await s().append([part('t', 0, [txBatch(ended.info, 0)])], LATER))[0]!.errorCode).toBe(0);
      expect(await s().transaction('tx')).toMatchObject({ producerId: ended.info.producerId, producerEpoch: 0 });
    });
  });
}
