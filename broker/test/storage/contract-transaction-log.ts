// Contract part: what transactions do to the log (KIP-98, docs/transactions.md): COMMIT/ABORT
// markers, the last stable offset, aborted ranges for read_committed fetches, the refusals of
// transactional appends (KIP-890 part 1), and what retention and topic deletion do to them. The
// coordinator's stored state is contract-transactions.ts.
import { ErrorCode } from '../../src/protocol/error-codes';
import { Attribute, readBatchHeader, verifyBatchCrc } from '../../src/protocol/record-batch';
import { baseOffsets, batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';
import { LATER, marker, transactionSteps, txBatch } from './contract-transaction-kit';

export function transactionLogContract(ctx: ContractContext): void {
  describe('transactions in the log', () => {
    const { s, begin, plain, readAll } = transactionSteps(ctx);

    it('commits: markers at the next offsets, the high watermark one further, data stable', async () => {
      await begin('tx', [0, 1]);
      expect(await plain()).toMatchObject({ errorCode: 0, baseOffset: 0 });
      const info = (await s().transaction('tx'))!;
      const r = await s().append([part('t', 0, [txBatch(info, 0, 2)]), part('t', 0, [txBatch(info, 2)])], NOW_MS);
      expect(r.map((x) => [x.errorCode, x.baseOffset])).toEqual([
        [0, 1],
        [0, 3],
      ]);
      expect((await s().offsets('t', 0))!.highWatermark).toBe(4);
      expect(await s().lastStableOffset('t', 0)).toBe(1);
      expect(await s().lastStableOffset('t', 1)).toBe(0);

      const ended = await s().endTransaction('tx', true, LATER);
      expect(ended.markedPartitions).toEqual([
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ]);
      expect(ended.info).toMatchObject({
        state: 'CompleteCommit',
        producerEpoch: 0,
        startedMs: NOW_MS + 1,
        updatedMs: LATER,
        partitions: [],
        groups: [],
      });
      expect(await s().transaction('tx')).toEqual(ended.info);
      // t-0: marker at 4; t-1 (added, never written): marker at 0, as Kafka writes one.
      expect((await s().offsets('t', 0))!.highWatermark).toBe(5);
      expect((await s().offsets('t', 1))!.highWatermark).toBe(1);
      expect(await s().lastStableOffset('t', 0)).toBe(5);
      expect(await s().lastStableOffset('t', 1)).toBe(1);
      const all = await readAll(0);
      expect(baseOffsets(all.batches)).toEqual([0, 1, 3, 4]);
      expect(all.lastStableOffset).toBe(5);
      for (const p of [0, 1]) {
        const batches = (await readAll(p)).batches;
        expect(marker(batches[batches.length - 1]!)).toEqual({
          offset: p === 0 ? 4 : 0,
          control: true,
          transactional: true,
          producerId: info.producerId,
          producerEpoch: 0,
          baseSequence: -1,
          records: 1,
          keyVersion: 0,
          type: 1,
          valueVersion: 0,
          coordinatorEpoch: 0,
          crcOk: true,
        });
        expect(Number(readBatchHeader(batches[batches.length - 1]!).maxTimestamp)).toBe(LATER);
      }
      const committed = await readAll(0, 0, true);
      expect(baseOffsets(committed.batches)).toEqual([0, 1, 3, 4]);
      expect(committed.abortedTransactions).toEqual([]);
    });

    it("stamps the marker LogAppendTime on a LogAppendTime topic, as Kafka validates the coordinator's batches", async () => {
      await s().createTopic('t', 2, { 'message.timestamp.type': 'LogAppendTime' });
      await begin();
      await s().endTransaction('tx', true, LATER);
      const h = readBatchHeader((await readAll(0)).batches[0]!);
      expect(h.attributes & Attribute.TimestampType).toBe(Attribute.TimestampType);
      expect(Number(h.maxTimestamp)).toBe(LATER);
      expect(verifyBatchCrc((await readAll(0)).batches[0]!)).toBe(true);
    });

    it('read_committed stops before the last stable offset, and at it returns nothing without an error', async () => {
      await begin();
      await plain();
      const info = (await s().transaction('tx'))!;
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
      await plain(); // another producer's data after the open transaction: not stable either
      expect((await s().offsets('t', 0))!.highWatermark).toBe(3);
      const committed = await readAll(0, 0, true);
      expect(baseOffsets(committed.batches)).toEqual([0]);
      expect(committed).toMatchObject({ errorCode: 0, highWatermark: 3, lastStableOffset: 1, abortedTransactions: [] });
      for (const from of [1, 2]) {
        expect(await readAll(0, from, true)).toEqual({
          errorCode: ErrorCode.NONE,
          highWatermark: 3,
          logStartOffset: 0,
          lastStableOffset: 1,
          batches: [],
          abortedTransactions: [],
        });
      }
      expect((await readAll(0, 4, true)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
      // read_uncommitted sees everything, and the LSO too.
      const uncommitted = await readAll(0, 0, false);
      expect(baseOffsets(uncommitted.batches)).toEqual([0, 1, 2]);
      expect(uncommitted.lastStableOffset).toBe(1);
      expect(uncommitted.abortedTransactions).toEqual([]);
      expect(await readAll(0, 3, false)).toMatchObject({ errorCode: 0, lastStableOffset: 1, batches: [] });
    });

    it('the LSO is the first offset of the oldest open transaction, and the HW once none is open', async () => {
      await s().createTopic('t', 1, {});
      expect(await s().lastStableOffset('t', 0)).toBe(0);
      expect(await s().lastStableOffset('t', 9)).toBeUndefined();
      const a = await begin('a');
      const b = await begin('b');
      await s().append([part('t', 0, [txBatch(a, 0)])], NOW_MS);
      await s().append([part('t', 0, [txBatch(b, 0)])], NOW_MS);
      await s().append([part('t', 0, [txBatch(a, 1)])], NOW_MS);
      expect(await s().lastStableOffset('t', 0)).toBe(0);
      await s().endTransaction('a', true, NOW_MS); // marker at 3
      expect(await s().lastStableOffset('t', 0)).toBe(1);
      expect(baseOffsets((await readAll(0, 0, true)).batches)).toEqual([0]);
      await s().endTransaction('b', false, NOW_MS); // marker at 4
      expect(await s().lastStableOffset('t', 0)).toBe(5);
      const committed = await readAll(0, 0, true);
      expect(baseOffsets(committed.batches)).toEqual([0, 1, 2, 3, 4]);
      expect(committed.abortedTransactions).toEqual([{ producerId: b.producerId, firstOffset: 1, lastOffset: 4 }]);
    });

    it('aborts: an aborted range for overlapping read_committed fetches only, the data still readable', async () => {
      const info = await begin('tx', [0, 1]);
      await plain(); // 0
      await s().append([part('t', 0, [txBatch(info, 0, 2)])], NOW_MS); // 1-2
      const ended = await s().endTransaction('tx', false, LATER); // marker at 3
      expect(ended.info.state).toBe('CompleteAbort');
      await plain(); // 4
      const range = { producerId: info.producerId, firstOffset: 1, lastOffset: 3 };
      expect((await readAll(0, 0, true)).abortedTransactions).toEqual([range]);
      expect((await readAll(0, 3, true)).abortedTransactions).toEqual([range]);
      expect((await readAll(0, 4, true)).abortedTransactions).toEqual([]);
      // Only the first batch fits: [0, 0] overlaps nothing.
      expect((await s().read('t', 0, 0, 1, true, true)).abortedTransactions).toEqual([]);
      expect((await readAll(0, 0, false)).abortedTransactions).toEqual([]);
      expect(marker((await readAll(0, 3)).batches[0]!)).toMatchObject({ offset: 3, type: 0, producerEpoch: 0 });
      // t-1 was added but not written: a marker, no aborted range.
      expect(await readAll(1, 0, true)).toMatchObject({
        highWatermark: 1,
        lastStableOffset: 1,
        abortedTransactions: [],
      });
    });

    it('returns several aborted ranges sorted by first offset', async () => {
      const a = await begin('a');
      const b = await begin('b');
      await s().append([part('t', 0, [txBatch(b, 0)])], NOW_MS); // 0
      await s().append([part('t', 0, [txBatch(a, 0)])], NOW_MS); // 1
      await s().endTransaction('a', false, NOW_MS); // 2
      await s().endTransaction('b', false, NOW_MS); // 3
      expect((await readAll(0, 0, true)).abortedTransactions).toEqual([
        { producerId: b.producerId, firstOffset: 0, lastOffset: 3 },
        { producerId: a.producerId, firstOffset: 1, lastOffset: 2 },
      ]);
    });

    it('refuses a batch for a partition not added, without an ongoing transaction, or of an unknown producer', async () => {
      const info = await begin('tx', [0]);
      const refused = (await s().append([part('t', 1, [txBatch(info, 0)])], NOW_MS))[0]!;
      expect(refused).toMatchObject({ errorCode: ErrorCode.INVALID_TXN_STATE, baseOffset: -1 });
      expect(refused.errorMessage).toMatch(/partition was not added to the transaction/);
      expect((await s().offsets('t', 1))!.highWatermark).toBe(0);
      expect(await s().lastStableOffset('t', 1)).toBe(0);

      await s().initTransaction('idle', 60000, NOW_MS);
      const idle = (await s().transaction('idle'))!;
      expect((await s().append([part('t', 0, [txBatch(idle, 0)])], NOW_MS))[0]!.errorCode).toBe(
        ErrorCode.INVALID_TXN_STATE,
      );
      const stranger = batch({ producerId: 999999, producerEpoch: 0, baseSequence: 0, transactional: true });
      expect((await s().append([part('t', 0, [stranger])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
      expect((await s().offsets('t', 0))!.highWatermark).toBe(0);
      // The refusals left nothing behind: the real transaction appends from sequence 0 at offset 0.
      expect((await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS))[0]).toMatchObject({
        errorCode: 0,
        baseOffset: 0,
      });
    });

    it('refuses a plain batch of a producer whose transaction is open in the partition', async () => {
      const info = await begin();
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
      const mixed = batch({ producerId: info.producerId, producerEpoch: 0, baseSequence: 1 });
      expect((await s().append([part('t', 0, [mixed])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    });

    it('DeleteRecords and retention drop the aborted ranges below the log start offset', async () => {
      const info = await begin();
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS); // 0
      await s().endTransaction('tx', false, NOW_MS); // 1
      await plain(); // 2
      expect((await readAll(0, 0, true)).abortedTransactions).toHaveLength(1);
      expect(await s().deleteRecords('t', 0, 2)).toMatchObject({ errorCode: 0, logStartOffset: 2 });
      expect((await readAll(0, 2, true)).abortedTransactions).toEqual([]);

      // Retention by time: everything up to the newest expired batch goes, its ranges with it.
      await s().createTopic('r', 1, { 'retention.ms': '1000' });
      await s().addToTransaction('tx', [{ topic: 'r', partition: 0 }], [], NOW_MS);
      await s().append([part('r', 0, [txBatch(info, 1)])], NOW_MS);
      await s().endTransaction('tx', false, NOW_MS);
      await s().enforceRetention(NOW_MS + 1e12, { retentionMs: -1, retentionBytes: -1 }, 100);
      const r = await s().read('r', 0, (await s().offsets('r', 0))!.logStartOffset, 1e9, true, true);
      expect(r.abortedTransactions).toEqual([]);
      expect(r.logStartOffset).toBe(2);
    });

    it('keeps the LSO at the log start when DeleteRecords passes an open transaction', async () => {
      const info = await begin();
      await plain(); // 0
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS); // 1
      await plain(); // 2
      await s().deleteRecords('t', 0, 2);
      expect(await s().lastStableOffset('t', 0)).toBe(2);
      await s().endTransaction('tx', true, NOW_MS); // 3
      expect(await s().lastStableOffset('t', 0)).toBe(4);
    });

    it('deleting a topic takes it out of open transactions; a new topic of that name starts clean', async () => {
      const info = await begin('tx', [0, 1], ['g']);
      await s().createTopic('u', 1, {});
      await s().addToTransaction('tx', [{ topic: 'u', partition: 0 }], [], NOW_MS);
      await s().append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
      await s().commitTransactionalOffsets(
        'tx',
        'g',
        [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }],
        NOW_MS,
      );
      expect(await s().deleteTopic('t')).toBe(true);
      expect(await s().transaction('tx')).toMatchObject({
        state: 'Ongoing',
        partitions: [{ topic: 'u', partition: 0 }],
      });
      expect(await s().pendingTransactionalOffsets('g')).toEqual([]);
      await s().createTopic('t', 2, {});
      expect(await s().lastStableOffset('t', 0)).toBe(0);
      expect((await s().endTransaction('tx', false, NOW_MS)).markedPartitions).toEqual([{ topic: 'u', partition: 0 }]);
      expect((await s().offsets('t', 0))!.highWatermark).toBe(0);
      expect((await s().offsets('u', 0))!.highWatermark).toBe(1);
    });
  });
}
