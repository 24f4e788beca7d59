// Contract part: transactions (KIP-98, docs/transactions.md): the coordinator's stored state
// (ids, epochs, partitions and groups added, ends), producer fencing and idempotence inside a
// transaction, transactional offsets, and a transaction across close and reopen. What
// transactions do to the log is contract-transaction-log.ts.
import { ErrorCode } from '../../src/protocol/error-codes';
import { baseOffsets, batch, NOW_MS, part, resend } from './fixtures';
import type { ContractContext } from './fixtures';
import { LATER, marker, transactionSteps, txBatch } from './contract-transaction-kit';

export function transactionsContract(ctx: ContractContext): void {
  describe('transactions', () => {
    const { s, begin, plain, readAll } = transactionSteps(ctx);

    it('initTransaction creates an id at epoch 0 and bumps it after, remembering the previous one', async () => {
      const plainId = (await s().initProducerId(null, NOW_MS)).producerId;
      const a = await s().initTransaction('tx', 30000, NOW_MS);
      expect(a).toEqual({
        transactionalId: 'tx',
        producerId: a.producerId,
        producerEpoch: 0,
        lastProducerId: -1,
        lastProducerEpoch: -1,
        state: 'Empty',
        timeoutMs: 30000,
        startedMs: -1,
        updatedMs: NOW_MS,
        partitions: [],
        groups: [],
      });
      expect(a.producerId).not.toBe(plainId);
      expect((await s().initProducerId(null, NOW_MS)).producerId).not.toBe(a.producerId);
      const b = await s().initTransaction('tx', 40000, LATER);
      expect(b).toMatchObject({
        producerId: a.producerId,
        producerEpoch: 1,
        lastProducerId: a.producerId,
        lastProducerEpoch: 0,
        timeoutMs: 40000,
        updatedMs: LATER,
      });
      await s().initTransaction('other', 1000, NOW_MS);
      expect((await s().transactions()).map((t) => t.transactionalId)).toEqual(['other', 'tx']);
      expect(await s().transaction('tx')).toEqual(b);
      expect(await s().transaction('nope')).toBeUndefined();
    });

    it('addToTransaction makes it Ongoing from the first add and merges partitions and groups', async () => {
      await s().createTopic('t', 3, {});
      await s().initTransaction('tx', 60000, NOW_MS);
      const first = await s().addToTransaction('tx', [{ topic: 't', partition: 2 }], ['g2'], NOW_MS + 1);
      expect(first).toMatchObject({ state: 'Ongoing', startedMs: NOW_MS + 1, groups: ['g2'] });
      const second = await s().addToTransaction(
        'tx',
        [
          { topic: 't', partition: 0 },
          { topic: 't', partition: 2 },
        ],
        ['g1'],
        NOW_MS + 2,
      );
      expect(second).toMatchObject({
        state: 'Ongoing',
        startedMs: NOW_MS + 1,
        updatedMs: NOW_MS + 2,
        partitions: [
          { topic: 't', partition: 0 },
          { topic: 't', partition: 2 },
        ],
        groups: ['g1', 'g2'],
      });
    });

    it('transactions() lists every id with its own partitions and groups, as transaction(id) shows it', async () => {
      await begin('b', [1], ['g2', 'g1']);
      await begin('a', [0, 1], []);
      await s().initTransaction('c', 1000, NOW_MS);
      const all = await s().transactions();
      expect(all.map((t) => t.transactionalId)).toEqual(['a', 'b', 'c']);
      expect(all).toEqual(await Promise.all(['a', 'b', 'c'].map((id) => s().transaction(id))));
      expect(all.map((t) => [t.partitions.length, t.groups])).toEqual([
        [2, []],
        [1, ['g1', 'g2']],
        [0, []],
      ]);
    });

    it('fences an older epoch and refuses a newer one', async () => {
      const old = await begin();
      await s().initTransaction('tx', 60000, NOW_MS);
      const current = await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], NOW_MS);
      expect(current.producerEpoch).toBe(1);
      const zombie = (await s().append([part('t', 0, [txBatch(old, 0)])], NOW_MS))[0]!;
      expect(zombie.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      const ahead = batch({ producerId: old.producerId, producerEpoch: 2, baseSequence: 0, transactional: true });
      expect((await s().append([part('t', 0, [ahead])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      expect((await s().append([part('t', 0, [txBatch(current, 0)])], NOW_MS))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 1, // after the abort marker the re-init wrote
      });
    });

    it('keeps idempotence inside a transaction: a retried batch is a duplicate', async () => {
      const info = await begin();
      const sent = txBatch(info, 0, 3);
      await s().append([part('t', 0, [sent])], NOW_MS);
      expect((await s().append([part('t', 0, [resend(sent)])], NOW_MS))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 0,
      });
      expect((await s().offsets('t', 0))!.highWatermark).toBe(3);
      expect(await s().lastStableOffset('t', 0)).toBe(0);
      const gap = txBatch(info, 7);
      expect((await s().append([part('t', 0, [gap])], NOW_MS))[0]!.errorCode).toBe(
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      );
    });

    it('continues with the same epoch in the next transaction (sequences go on)', async () => {
      const info = await begin();
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS); // 0
      await s().endTransaction('tx', true, NOW_MS); // 1
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], NOW_MS);
      expect((await s().append([part('t', 0, [txBatch(info, 1)])], NOW_MS))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 2,
      });
      expect(await s().lastStableOffset('t', 0)).toBe(2);
    });

    it('initTransaction during an ongoing transaction aborts it with the new epoch', async () => {
      const info = await begin('tx', [0, 1]);
      await s().append([part('t', 0, [txBatch(info, 0, 2)])], NOW_MS); // 0-1
      const next = await s().initTransaction('tx', 60000, LATER); // marker at 2
      expect(next).toMatchObject({
        producerId: info.producerId,
        producerEpoch: 1,
        lastProducerEpoch: 0,
        state: 'Empty',
        startedMs: -1,
        partitions: [],
      });
      expect((await s().offsets('t', 0))!.highWatermark).toBe(3);
      expect((await s().offsets('t', 1))!.highWatermark).toBe(1);
      expect(await s().lastStableOffset('t', 0)).toBe(3);
      const m = marker((await readAll(0, 2)).batches[0]!);
      expect(m).toMatchObject({ offset: 2, type: 0, producerEpoch: 1, producerId: info.producerId });
      expect((await readAll(0, 0, true)).abortedTransactions).toEqual([
        { producerId: info.producerId, firstOffset: 0, lastOffset: 2 },
      ]);
      // The new instance writes at epoch 1 from sequence 0.
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], LATER);
      expect((await s().append([part('t', 0, [txBatch(next, 0)])], NOW_MS))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 3,
      });
    });

    it('endTransaction with bumpEpoch fences the producer: the markers carry the new epoch', async () => {
      const info = await begin();
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
      const ended = await s().endTransaction('tx', false, LATER, 'fence');
      expect(ended.info).toMatchObject({
        producerId: info.producerId,
        producerEpoch: 1,
        lastProducerId: info.producerId,
        lastProducerEpoch: 0,
        state: 'CompleteAbort',
      });
      expect(marker((await readAll(0, 1)).batches[0]!)).toMatchObject({ type: 0, producerEpoch: 1 });
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], LATER);
      expect((await s().append([part('t', 0, [txBatch(info, 1)])], NOW_MS))[0]!.errorCode).toBe(
        ErrorCode.INVALID_PRODUCER_EPOCH,
      );
      // The marker moved the partition's producer state to the new epoch (appendEndTxnMarker):
      // the fenced instance's plain batches are refused too.
      const plainZombie = batch({ producerId: info.producerId, producerEpoch: 0, baseSequence: 1 });
      expect((await s().append([part('t', 0, [plainZombie])], NOW_MS))[0]!.errorCode).toBe(
        ErrorCode.INVALID_PRODUCER_EPOCH,
      );
      // The next instance (epoch 2; its InitProducerId aborted the transaction begun above: marker at
      // 2) starts at sequence 0 there.
      const next = await s().initTransaction('tx', 60000, LATER);
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], LATER);
      expect((await s().append([part('t', 0, [txBatch(next, 0)])], NOW_MS))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 3,
      });
    });

    it('keeps transactional offsets pending until commit, and drops them on abort', async () => {
      await begin('tx', [0], ['g']);
      await s().commitOffsets('g', [{ topic: 't', partition: 1, offset: 5, leaderEpoch: 0, metadata: null }], NOW_MS);
      const offsets = [
        { topic: 't', partition: 1, offset: 7, leaderEpoch: 0, metadata: 'x' },
        { topic: 't', partition: 0, offset: 3, leaderEpoch: 0, metadata: null },
      ];
      await s().commitTransactionalOffsets('tx', 'g', offsets, NOW_MS);
      await s().commitTransactionalOffsets('tx', 'g', [{ ...offsets[1]!, offset: 4 }], NOW_MS); // replaces
      expect(await s().fetchOffsets('g')).toEqual([
        { topic: 't', partition: 1, offset: 5, leaderEpoch: 0, metadata: null, commitTimestampMs: NOW_MS },
      ]);
      expect(await s().pendingTransactionalOffsets('g')).toEqual([
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ]);
      expect(await s().pendingTransactionalOffsets('other')).toEqual([]);
      expect((await s().transaction('tx'))!.groups).toEqual(['g']);
      await s().endTransaction('tx', true, LATER);
      expect(await s().fetchOffsets('g')).toEqual([
        { topic: 't', partition: 0, offset: 4, leaderEpoch: 0, metadata: null, commitTimestampMs: LATER },
        { topic: 't', partition: 1, offset: 7, leaderEpoch: 0, metadata: 'x', commitTimestampMs: LATER },
      ]);
      expect(await s().pendingTransactionalOffsets('g')).toEqual([]);
      expect((await s().transaction('tx'))!.groups).toEqual([]);

      await s().addToTransaction('tx', [], ['g'], LATER);
      await s().commitTransactionalOffsets('tx', 'g', [{ ...offsets[0]!, offset: 99 }], LATER);
      await s().endTransaction('tx', false, LATER + 1);
      expect((await s().fetchOffsets('g')).map((o) => o.offset)).toEqual([4, 7]);
      expect(await s().pendingTransactionalOffsets('g')).toEqual([]);
    });

    it('deleteTransaction refuses an ongoing transaction and forgets an ended one', async () => {
      const info = await begin();
      expect(await s().deleteTransaction('tx')).toBe(false);
      expect(await s().deleteTransaction('nope')).toBe(false);
      await s().endTransaction('tx', true, NOW_MS);
      expect(await s().deleteTransaction('tx')).toBe(true);
      expect(await s().transaction('tx')).toBeUndefined();
      expect(await s().transactions()).toEqual([]);
      expect(await s().initTransaction('tx', 60000, NOW_MS)).toMatchObject({ producerEpoch: 0, lastProducerId: -1 });
      expect((await s().transaction('tx'))!.producerId).not.toBe(info.producerId);
    });

    if (ctx.reopen) {
      it('survives close and reopen: the open transaction, its LSO, pending offsets; then aborts', async () => {
        const info = await begin('tx', [0, 1], ['g']);
        await plain(); // 0
        await s().append([part('t', 0, [txBatch(info, 0, 2)])], NOW_MS); // 1-2
        await s().commitTransactionalOffsets(
          'tx',
          'g',
          [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }],
          NOW_MS,
        );
        const before = await s().transaction('tx');
        await ctx.reopen!();
        expect(await s().transaction('tx')).toEqual(before);
        expect(await s().lastStableOffset('t', 0)).toBe(1);
        expect(baseOffsets((await readAll(0, 0, true)).batches)).toEqual([0]);
        expect(await s().pendingTransactionalOffsets('g')).toEqual([{ topic: 't', partition: 0 }]);
        // The producer continues after the restart: the sequence and the transaction are known.
        expect((await s().append([part('t', 0, [txBatch(info, 2)])], NOW_MS))[0]).toMatchObject({
          errorCode: 0,
          baseOffset: 3,
        });
        await s().endTransaction('tx', false, LATER); // markers: t-0 at 4, t-1 at 0
        await ctx.reopen!();
        expect(await s().transaction('tx')).toMatchObject({ state: 'CompleteAbort', partitions: [], groups: [] });
        expect(await s().lastStableOffset('t', 0)).toBe(5);
        expect((await readAll(0, 0, true)).abortedTransactions).toEqual([
          { producerId: info.producerId, firstOffset: 1, lastOffset: 4 },
        ]);
        expect(await s().fetchOffsets('g')).toEqual([]);
        expect(await s().pendingTransactionalOffsets('g')).toEqual([]);
        expect((await s().initTransaction('tx', 60000, LATER)).producerEpoch).toBe(1);
      });
    }
  });
}
