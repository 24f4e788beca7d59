// The transaction coordinator with transaction version 2 (KIP-890 part 2: EndTxn v5, Produce v12,
// TxnOffsetCommit v5), as Kafka 4's TransactionCoordinator.endTransaction decides: every end bumps
// the epoch and answers it, a retry of that end (the epoch before) is answered with the current
// one, and the table of Empty / CompleteCommit / CompleteAbort answers. Over the memory engine.
import { ErrorCode as E } from '../../src/protocol/error-codes';
import { harness, t } from './harness';

const TV2 = 2;

async function begin(h: ReturnType<typeof harness>) {
  const p = await h.coord.initProducerId('tx', 60_000, null);
  expect(p.errorCode).toBe(E.NONE);
  return { producerId: p.producerId, producerEpoch: p.producerEpoch };
}

describe('EndTxn with transaction version 2', () => {
  it('bumps the epoch at each commit and abort and answers the new one; the old epoch is fenced', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    expect(h.produce(a, 0).errorCode).toBe(E.NONE);
    const committed = await h.coord.endTransaction('tx', a, true, TV2);
    expect(committed).toEqual({ errorCode: E.NONE, producerId: a.producerId, producerEpoch: a.producerEpoch + 1 });
    const b = { producerId: committed.producerId, producerEpoch: committed.producerEpoch };
    // A batch of the ended transaction arriving late: fenced by the marker's epoch.
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.PRODUCER_FENCED);
    expect(h.produce(a, 0).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect(await h.coord.addPartitions('tx', b, [t(0)])).toBe(E.NONE);
    expect(h.produce(b, 0).errorCode).toBe(E.NONE);
    const aborted = await h.coord.endTransaction('tx', b, false, TV2);
    expect(aborted).toEqual({ errorCode: E.NONE, producerId: a.producerId, producerEpoch: a.producerEpoch + 2 });
    expect(h.info()).toMatchObject({ state: 'CompleteAbort', producerEpoch: a.producerEpoch + 2 });
  });

  it("answers a retry (the epoch before the bump) with the current epoch; Kafka's table for the rest", async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0)]);
    const done = await h.coord.endTransaction('tx', a, true, TV2);
    const b = { producerId: done.producerId, producerEpoch: done.producerEpoch };
    // CompleteCommit: retry commit NONE (same answer), retry abort ITS, current commit ITS.
    expect(await h.coord.endTransaction('tx', a, true, TV2)).toEqual(done);
    expect((await h.coord.endTransaction('tx', a, false, TV2)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await h.coord.endTransaction('tx', b, true, TV2)).errorCode).toBe(E.INVALID_TXN_STATE);
    // An older epoch than the retry's, or another producer id.
    const older = { ...a, producerEpoch: a.producerEpoch - 1 };
    expect((await h.coord.endTransaction('tx', older, true, TV2)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await h.coord.endTransaction('tx', { ...b, producerId: b.producerId + 1 }, true, TV2)).errorCode).toBe(
      E.INVALID_PRODUCER_ID_MAPPING,
    );
    // CompleteCommit, current abort: an empty transaction's abort, bumped (abortable-error recovery).
    const c = await h.coord.endTransaction('tx', b, false, TV2);
    expect(c).toEqual({ errorCode: E.NONE, producerId: b.producerId, producerEpoch: b.producerEpoch + 1 });
    expect(h.info()).toMatchObject({ state: 'CompleteAbort' });
    // CompleteAbort: retry abort NONE, any commit ITS, current abort bumps again.
    expect(await h.coord.endTransaction('tx', b, false, TV2)).toEqual(c);
    expect((await h.coord.endTransaction('tx', b, true, TV2)).errorCode).toBe(E.INVALID_TXN_STATE);
    const cur = { producerId: c.producerId, producerEpoch: c.producerEpoch };
    expect((await h.coord.endTransaction('tx', cur, true, TV2)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await h.coord.endTransaction('tx', cur, false, TV2)).producerEpoch).toBe(cur.producerEpoch + 1);
  });

  it('Empty: an abort bumps the epoch, a commit is INVALID_TXN_STATE, a retry epoch is fenced', async () => {
    const h = harness();
    const a = await begin(h);
    expect((await h.coord.endTransaction('tx', a, true, TV2)).errorCode).toBe(E.INVALID_TXN_STATE);
    const b = await begin(h); // Empty again, epoch a + 1
    expect((await h.coord.endTransaction('tx', a, false, TV2)).errorCode).toBe(E.PRODUCER_FENCED);
    expect(await h.coord.endTransaction('tx', b, false, TV2)).toEqual({
      errorCode: E.NONE,
      producerId: b.producerId,
      producerEpoch: b.producerEpoch + 1,
    });
    expect(h.marked).toEqual([[]]); // nothing was added: no marker anywhere
  });

  it('Ongoing: only the current epoch ends it (a retry epoch is fenced)', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0)]);
    const b = await h.coord.endTransaction('tx', a, true, TV2);
    const next = { producerId: b.producerId, producerEpoch: b.producerEpoch };
    await h.coord.addPartitions('tx', next, [t(1)]);
    expect((await h.coord.endTransaction('tx', a, true, TV2)).errorCode).toBe(E.PRODUCER_FENCED);
    expect(h.info()).toMatchObject({ state: 'Ongoing', partitions: [t(1)] });
  });

  it('v0-4 (version 1) on the same coordinator: no bump, a retry with the same epoch is NONE', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0)]);
    expect(await h.coord.endTransaction('tx', a, true, 1)).toEqual({ errorCode: E.NONE, ...a });
    expect(await h.coord.endTransaction('tx', a, true, 1)).toEqual({ errorCode: E.NONE, ...a });
  });
});

describe('the epoch overflow with transaction version 2', () => {
  it('after epoch 32766 EndTxn answers a new producer id at epoch 0; a retry with the old one gets it again', async () => {
    const h = harness();
    const a = await begin(h);
    let cur = a;
    while (cur.producerEpoch < 32766) {
      const r = await h.coord.endTransaction('tx', cur, false, TV2);
      cur = { producerId: r.producerId, producerEpoch: r.producerEpoch };
    }
    expect(cur).toEqual({ producerId: a.producerId, producerEpoch: 32766 });
    await h.coord.addPartitions('tx', cur, [t(0)]);
    expect(h.produce(cur, 0).errorCode).toBe(E.NONE);
    const rotated = await h.coord.endTransaction('tx', cur, true, TV2);
    expect(rotated.errorCode).toBe(E.NONE);
    expect(rotated.producerEpoch).toBe(0);
    expect(rotated.producerId).not.toBe(a.producerId);
    // The retry of that EndTxn (old id, 32766) is answered with the new id (retryOnOverflow).
    expect(await h.coord.endTransaction('tx', cur, true, TV2)).toEqual(rotated);
    const next = { producerId: rotated.producerId, producerEpoch: 0 };
    expect(await h.coord.addPartitions('tx', next, [t(0)])).toBe(E.NONE);
    expect(h.produce(next, 0).errorCode).toBe(E.NONE);
    expect(await h.coord.addPartitions('tx', cur, [t(0)])).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });
});

describe('TxnOffsetCommit v5 (addsGroup)', () => {
  const input = (p: { producerId: number; producerEpoch: number }, addsGroup: boolean) => ({
    transactionalId: 'tx',
    groupId: 'g',
    ...p,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    addsGroup,
  });
  const offset = { topic: 't', partition: 0, offset: 5, leaderEpoch: -1, metadata: null };

  it('adds the group to the transaction (starting it) where v4 without AddOffsetsToTxn is INVALID_TXN_STATE', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.commitOffsets(input(a, false), [offset])).toEqual([E.INVALID_TXN_STATE]);
    expect(await h.coord.commitOffsets(input(a, true), [offset])).toEqual([E.NONE]);
    expect(h.info()).toMatchObject({ state: 'Ongoing', groups: ['g'] });
    const done = await h.coord.endTransaction('tx', a, true, TV2);
    expect(done.errorCode).toBe(E.NONE);
    expect(h.storage.fetchOffsets('g')[0]).toMatchObject({ offset: 5 });
    // The ended epoch can no longer add the group: fenced (INVALID_PRODUCER_EPOCH for TxnOffsetCommit).
    expect(await h.coord.commitOffsets(input(a, true), [offset])).toEqual([E.INVALID_PRODUCER_EPOCH]);
  });
});

describe("Produce v12's add, remembered (added-partitions.ts)", () => {
  it('is answered from memory while the transaction goes on, and read again after each end', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    const reads = jest.spyOn(h.storage, 'transaction');
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    expect(reads).not.toHaveBeenCalled();
    // A version-1 end keeps the epoch: the next add must start a transaction again, not be skipped.
    await h.coord.endTransaction('tx', a, true, 1);
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    expect(h.info()).toMatchObject({ state: 'Ongoing', partitions: [t(0)] });
    // The timeout abort forgets too: the fenced epoch's add is refused, not answered from memory.
    h.timers.nowMs += 61_000;
    await h.coord.runCleanup();
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.PRODUCER_FENCED);
    reads.mockRestore();
  });
});
