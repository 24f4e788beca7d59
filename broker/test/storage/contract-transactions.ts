// Contract part: transactions (KIP-98, docs/transactions.md): the coordinator's stored state,
// transactional appends (KIP-890 part 1), COMMIT/ABORT markers, the last stable offset, aborted
// ranges for read_committed fetches, transactional offsets, and what retention and topic deletion
// do to them.
import { ErrorCode } from '../../src/protocol/error-codes';
import { Attribute, decodeRecords, readBatchHeader, verifyBatchCrc } from '../../src/protocol/record-batch';
import type { TransactionInfo } from '../../src/storage/storage';
import { baseOffsets, batch, NOW_MS, part, resend } from './fixtures';
import type { ContractContext } from './fixtures';

const LATER = NOW_MS + 5000;

/** A transactional batch of the transaction's producer at its current epoch. */
const txBatch = (info: TransactionInfo, baseSequence: number, records = 1) =>
  batch({ producerId: info.producerId, producerEpoch: info.producerEpoch, baseSequence, records, transactional: true });

/** What a marker batch says: its offset, producer, epoch, and type (0 ABORT, 1 COMMIT). */
function marker(data: Buffer) {
  const h = readBatchHeader(data);
  const [rec] = decodeRecords(data);
  return {
    offset: Number(h.baseOffset),
    control: (h.attributes & Attribute.Control) !== 0,
    transactional: (h.attributes & Attribute.Transactional) !== 0,
    producerId: Number(h.producerId),
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    records: h.recordsCount,
    keyVersion: rec!.key!.readInt16BE(0),
    type: rec!.key!.readInt16BE(2),
    valueVersion: rec!.value!.readInt16BE(0),
    coordinatorEpoch: rec!.value!.readInt32BE(2),
    crcOk: verifyBatchCrc(data),
  };
}

export function transactionsContract(ctx: ContractContext): void {
  describe('transactions', () => {
    const s = () => ctx.s;
    /** Topic t (2 partitions) and transactional id tx, Ongoing with t-0 (and any `more`) added. */
    const begin = async (id = 'tx', partitions = [0], groups: string[] = []) => {
      if (!(await s().topic('t'))) await s().createTopic('t', 2, {});
      await s().initTransaction(id, 60000, NOW_MS);
      return await s().addToTransaction(
        id,
        partitions.map((p) => ({ topic: 't', partition: p })),
        groups,
        NOW_MS + 1,
      );
    };
    const plain = async (topic = 't', partition = 0) =>
      (await s().append([part(topic, partition, [batch()])], NOW_MS))[0]!;
    const readAll = async (partition = 0, from = 0, committed = false) =>
      await s().read('t', partition, from, 1e9, true, committed);

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
