// The transaction coordinator's checks of each request (Kafka's TransactionCoordinator.scala, transaction
// version 1) over the memory engine, with a fake clock; its cleanup pass: coordinator-cleanup.test.ts.
import { ErrorCode as E } from '../../src/protocol/error-codes';
import { fencedFor } from '../../src/transactions/coordinator';
import { begin, harness, START_MS, t } from './harness';

describe('InitProducerId with a transactional id', () => {
  it('creates the id at epoch 0, then bumps the epoch on each call (fencing the previous producer)', async () => {
    const h = harness();
    const a = await h.coord.initProducerId('tx', 60_000, null);
    expect(a).toEqual({ errorCode: E.NONE, producerId: a.producerId, producerEpoch: 0 });
    const b = await h.coord.initProducerId('tx', 60_000, null);
    expect(b).toEqual({ errorCode: E.NONE, producerId: a.producerId, producerEpoch: 1 });
    // The first producer is fenced from then on.
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.PRODUCER_FENCED);
    expect(await h.coord.addPartitions('tx', b, [t(0)])).toBe(E.NONE);
  });

  it('refuses timeouts above transaction.max.timeout.ms or not positive, and an empty id', async () => {
    const h = harness({ maxTimeoutMs: 1000 });
    expect((await h.coord.initProducerId('tx', 1001, null)).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect((await h.coord.initProducerId('tx', 0, null)).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect((await h.coord.initProducerId('tx', -5, null)).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect(await h.coord.initProducerId('', 1000, null)).toEqual({
      errorCode: E.INVALID_REQUEST,
      producerId: -1,
      producerEpoch: -1,
    });
    expect((await h.coord.initProducerId('tx', 1000, null)).errorCode).toBe(E.NONE);
  });

  it('aborts the ongoing transaction of the previous producer (markers written, fetches woken)', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.addPartitions('tx', a, [t(0), t(1)])).toBe(E.NONE);
    expect(h.produce(a, 0).errorCode).toBe(E.NONE);
    expect(h.storage.lastStableOffset('t', 0)).toBe(0);
    const b = await h.coord.initProducerId('tx', 60_000, null);
    expect(b.producerEpoch).toBeGreaterThan(a.producerEpoch);
    expect(h.info()).toMatchObject({ state: 'Empty', partitions: [] });
    expect(h.storage.lastStableOffset('t', 0)).toBe(h.storage.offsets('t', 0)!.highWatermark);
    expect(h.marked).toEqual([[t(0), t(1)]]);
    // The zombie's next write and its commit are refused.
    expect(h.produce(a, 0).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect((await h.coord.endTransaction('tx', a, true)).errorCode).toBe(E.PRODUCER_FENCED);
  });

  describe('KIP-360: with the producer id and epoch (v3+)', () => {
    it('bumps the epoch of the current producer, and answers its retry the same way', async () => {
      const h = harness();
      const a = await begin(h);
      const bumped = await h.coord.initProducerId('tx', 60_000, a);
      expect(bumped).toEqual({ errorCode: E.NONE, producerId: a.producerId, producerEpoch: a.producerEpoch + 1 });
      // The answer was lost: the retry names the same (old) epoch and gets the same answer.
      expect(await h.coord.initProducerId('tx', 60_000, a)).toEqual(bumped);
      expect(h.info()!.producerEpoch).toBe(a.producerEpoch + 1);
    });

    it('fences an older epoch or another producer id', async () => {
      const h = harness();
      const a = await begin(h);
      const b = await begin(h); // a second instance fences a
      expect(await h.coord.initProducerId('tx', 60_000, a)).toEqual({
        errorCode: E.PRODUCER_FENCED,
        producerId: -1,
        producerEpoch: -1,
      });
      expect(
        (await h.coord.initProducerId('tx', 60_000, { producerId: b.producerId + 99, producerEpoch: 0 })).errorCode,
      ).toBe(E.PRODUCER_FENCED);
      expect((await h.coord.initProducerId('tx', 60_000, b)).errorCode).toBe(E.NONE);
    });

    it('never hands a fenced producer the epoch of the one that fenced it', async () => {
      const h = harness();
      const a = await begin(h);
      const b = await begin(h);
      // a's epoch is the "last" one stored, but b's bump did not name it: a stays fenced.
      expect(h.info()).toMatchObject({ lastProducerEpoch: a.producerEpoch, producerEpoch: b.producerEpoch });
      expect((await h.coord.initProducerId('tx', 60_000, a)).errorCode).toBe(E.PRODUCER_FENCED);
    });

    it('after a timeout abort the timed-out producer recovers with the fenced epoch (Kafka 4.1, npm run compat)', async () => {
      const h = harness({ cleanupIntervalMs: 1000 });
      const a = await begin(h, 'tx', 5000);
      expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
      await h.timers.advanceAsync(7000);
      const fenced = { producerId: a.producerId, producerEpoch: a.producerEpoch + 1 };
      expect(h.info()).toMatchObject({ state: 'CompleteAbort', ...fenced });
      // Its writes are refused, its EndTxn fenced; InitProducerId naming its epoch gets the new one.
      expect((await h.coord.endTransaction('tx', a, false)).errorCode).toBe(E.PRODUCER_FENCED);
      expect(await h.coord.initProducerId('tx', 60_000, a)).toEqual({ errorCode: E.NONE, ...fenced });
      expect(await h.coord.initProducerId('tx', 60_000, a)).toEqual({ errorCode: E.NONE, ...fenced });
      expect(await h.coord.addPartitions('tx', fenced, [t(0)])).toBe(E.NONE);
    });

    it('after a timeout abort, a new instance ends the timed-out producer for good', async () => {
      const h = harness({ cleanupIntervalMs: 1000 });
      const a = await begin(h, 'tx', 5000);
      await h.coord.addPartitions('tx', a, [t(0)]);
      await h.timers.advanceAsync(7000);
      const b = await begin(h);
      expect(b.producerEpoch).toBe(a.producerEpoch + 2);
      expect((await h.coord.initProducerId('tx', 60_000, a)).errorCode).toBe(E.PRODUCER_FENCED);
    });

    it('creates an id that does not exist (expired), whatever ids the producer names', async () => {
      const h = harness();
      const r = await h.coord.initProducerId('new', 60_000, { producerId: 1234, producerEpoch: 7 });
      expect(r).toMatchObject({ errorCode: E.NONE, producerEpoch: 0 });
    });
  });
});

describe('AddPartitionsToTxn / AddOffsetsToTxn', () => {
  it('checks the producer id mapping and the epoch', async () => {
    const h = harness();
    expect(await h.coord.addPartitions('nope', { producerId: 1, producerEpoch: 0 }, [t(0)])).toBe(
      E.INVALID_PRODUCER_ID_MAPPING,
    );
    const a = await begin(h);
    expect(await h.coord.addPartitions('tx', { ...a, producerId: a.producerId + 1 }, [t(0)])).toBe(
      E.INVALID_PRODUCER_ID_MAPPING,
    );
    expect(await h.coord.addPartitions('tx', { ...a, producerEpoch: a.producerEpoch + 1 }, [t(0)])).toBe(
      E.PRODUCER_FENCED,
    );
    expect(await h.coord.addOffsets('tx', { ...a, producerEpoch: 5 }, 'g')).toBe(E.PRODUCER_FENCED);
    expect(await h.coord.addPartitions('', a, [t(0)])).toBe(E.INVALID_REQUEST);
  });

  it('starts a transaction (Ongoing, start time) and extends it', async () => {
    const h = harness();
    const a = await begin(h);
    await h.timers.advanceAsync(10);
    expect(await h.coord.addPartitions('tx', a, [t(1)])).toBe(E.NONE);
    expect(h.info()).toMatchObject({ state: 'Ongoing', startedMs: START_MS + 10, partitions: [t(1)] });
    await h.timers.advanceAsync(10);
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    expect(await h.coord.addOffsets('tx', a, 'g')).toBe(E.NONE);
    expect(h.info()).toMatchObject({ startedMs: START_MS + 10, partitions: [t(0), t(1)], groups: ['g'] });
    // Already there: nothing is written.
    const before = h.info()!.updatedMs;
    await h.timers.advanceAsync(10);
    expect(await h.coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    expect(h.info()!.updatedMs).toBe(before);
  });

  it('starts a new transaction after a completed one', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0)]);
    expect((await h.coord.endTransaction('tx', a, true)).errorCode).toBe(E.NONE);
    expect(await h.coord.addPartitions('tx', a, [t(1)])).toBe(E.NONE);
    expect(h.info()).toMatchObject({ state: 'Ongoing', partitions: [t(1)] });
  });
});

describe('EndTxn', () => {
  it('commits: markers in every partition, the LSO moves to the end, the fetch waiters are told', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0), t(1)]);
    h.produce(a, 0, 'x');
    h.produce(a, 1, 'y');
    expect(h.storage.lastStableOffset('t', 0)).toBe(0);
    expect(await h.coord.endTransaction('tx', a, true)).toEqual({ errorCode: E.NONE, ...a });
    expect(h.info()).toMatchObject({ state: 'CompleteCommit', partitions: [], groups: [] });
    for (const p of [0, 1]) {
      expect(h.storage.offsets('t', p)!.highWatermark).toBe(2); // the record and its marker
      expect(h.storage.lastStableOffset('t', p)).toBe(2);
      expect(h.storage.read('t', p, 0, 1e6, true, true).abortedTransactions).toEqual([]);
    }
    expect(h.marked).toEqual([[t(0), t(1)]]);
  });

  it('aborts: read_committed gets the aborted range', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0)]);
    h.produce(a, 0);
    expect((await h.coord.endTransaction('tx', a, false)).errorCode).toBe(E.NONE);
    expect(h.info()!.state).toBe('CompleteAbort');
    expect(h.storage.read('t', 0, 0, 1e6, true, true).abortedTransactions).toEqual([
      { producerId: a.producerId, firstOffset: 0, lastOffset: 1 },
    ]);
  });

  it('answers a retried decision NONE, the opposite one and an Empty id INVALID_TXN_STATE', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.endTransaction('tx', a, true)).toEqual({
      errorCode: E.INVALID_TXN_STATE,
      producerId: -1,
      producerEpoch: -1,
    });
    await h.coord.addPartitions('tx', a, [t(0)]);
    await h.coord.endTransaction('tx', a, true);
    expect(await h.coord.endTransaction('tx', a, true)).toEqual({ errorCode: E.NONE, ...a });
    expect((await h.coord.endTransaction('tx', a, false)).errorCode).toBe(E.INVALID_TXN_STATE);
    await h.coord.addPartitions('tx', a, [t(0)]);
    await h.coord.endTransaction('tx', a, false);
    expect((await h.coord.endTransaction('tx', a, false)).errorCode).toBe(E.NONE);
    expect((await h.coord.endTransaction('tx', a, true)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect(h.marked).toHaveLength(2); // retries write nothing
  });

  it('checks the producer id mapping and the epoch', async () => {
    const h = harness();
    expect((await h.coord.endTransaction('nope', { producerId: 1, producerEpoch: 0 }, true)).errorCode).toBe(
      E.INVALID_PRODUCER_ID_MAPPING,
    );
    const a = await begin(h);
    await h.coord.addPartitions('tx', a, [t(0)]);
    expect((await h.coord.endTransaction('tx', { ...a, producerId: a.producerId + 1 }, true)).errorCode).toBe(
      E.INVALID_PRODUCER_ID_MAPPING,
    );
    expect((await h.coord.endTransaction('tx', { ...a, producerEpoch: a.producerEpoch - 1 }, true)).errorCode).toBe(
      E.PRODUCER_FENCED,
    );
    expect(h.info()!.state).toBe('Ongoing');
  });

  it('maps PRODUCER_FENCED to INVALID_PRODUCER_EPOCH for the versions before it (KafkaApis)', async () => {
    expect(fencedFor(E.PRODUCER_FENCED, 1, 2)).toBe(E.INVALID_PRODUCER_EPOCH);
    expect(fencedFor(E.PRODUCER_FENCED, 2, 2)).toBe(E.PRODUCER_FENCED);
    expect(fencedFor(E.PRODUCER_FENCED, 3, 4)).toBe(E.INVALID_PRODUCER_EPOCH);
    expect(fencedFor(E.INVALID_TXN_STATE, 0, 2)).toBe(E.INVALID_TXN_STATE);
  });
});

describe('TxnOffsetCommit', () => {
  const input = (a: { producerId: number; producerEpoch: number }, over = {}) => ({
    transactionalId: 'tx',
    groupId: 'g',
    ...a,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    ...over,
  });
  const offset = (partition: number, o: number, metadata: string | null = 'm') => ({
    topic: 't',
    partition,
    offset: o,
    leaderEpoch: -1,
    metadata,
  });

  it('stages offsets that the group sees only once the transaction commits', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.addOffsets('tx', a, 'g')).toBe(E.NONE);
    expect(await h.coord.commitOffsets(input(a), [offset(0, 5), offset(1, 7, null)])).toEqual([E.NONE, E.NONE]);
    expect(h.storage.fetchOffsets('g')).toEqual([]);
    expect(h.storage.pendingTransactionalOffsets('g')).toEqual([t(0), t(1)]);
    await h.coord.endTransaction('tx', a, true);
    expect(h.storage.pendingTransactionalOffsets('g')).toEqual([]);
    expect(h.storage.fetchOffsets('g').map((o) => [o.partition, o.offset, o.metadata])).toEqual([
      [0, 5, 'm'],
      [1, 7, ''],
    ]);
  });

  it('drops them when the transaction aborts', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addOffsets('tx', a, 'g');
    await h.coord.commitOffsets(input(a), [offset(0, 5)]);
    await h.coord.endTransaction('tx', a, false);
    expect(h.storage.fetchOffsets('g')).toEqual([]);
    expect(h.storage.pendingTransactionalOffsets('g')).toEqual([]);
  });

  it('needs the group added to the ongoing transaction (INVALID_TXN_STATE) and the current producer', async () => {
    const h = harness();
    const a = await begin(h);
    expect(await h.coord.commitOffsets(input(a), [offset(0, 5)])).toEqual([E.INVALID_TXN_STATE]);
    await h.coord.addPartitions('tx', a, [t(0)]);
    expect(await h.coord.commitOffsets(input(a), [offset(0, 5)])).toEqual([E.INVALID_TXN_STATE]);
    await h.coord.addOffsets('tx', a, 'g');
    expect(await h.coord.commitOffsets(input(a, { groupId: 'other' }), [offset(0, 5)])).toEqual([E.INVALID_TXN_STATE]);
    expect(await h.coord.commitOffsets(input({ ...a, producerEpoch: 9 }), [offset(0, 5)])).toEqual([
      E.INVALID_PRODUCER_EPOCH,
    ]);
    expect(await h.coord.commitOffsets(input({ ...a, producerId: a.producerId + 100 }), [offset(0, 5)])).toEqual([
      E.INVALID_PRODUCER_ID_MAPPING,
    ]);
    expect(await h.coord.commitOffsets(input(a, { groupId: '' }), [offset(0, 5)])).toEqual([E.INVALID_GROUP_ID]);
  });

  it('checks generation and member when given (KIP-447), and metadata size per offset', async () => {
    const h = harness();
    const a = await begin(h);
    await h.coord.addOffsets('tx', a, 'g');
    // A group the coordinator does not hold: a generation names a stale member.
    expect(await h.coord.commitOffsets(input(a, { generationId: 3, memberId: 'm-1' }), [offset(0, 1)])).toEqual([
      E.ILLEGAL_GENERATION,
    ]);
    expect(await h.coord.commitOffsets(input(a), [offset(0, 1, 'x'.repeat(5000)), offset(1, 2)])).toEqual([
      E.OFFSET_METADATA_TOO_LARGE,
      E.NONE,
    ]);
  });

  it('checks the member epoch for a KIP-848 consumer group (sendOffsetsToTransaction with group.protocol=consumer)', async () => {
    const h = harness();
    const joined = await h.groups.consumer.heartbeat({
      groupId: 'g',
      memberId: 'm-1',
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['t'],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
      clientId: 'c',
      clientHost: '/127.0.0.1',
    });
    expect(joined).toMatchObject({ errorCode: E.NONE, memberEpoch: 1 });
    const a = await begin(h);
    await h.coord.addOffsets('tx', a, 'g');
    expect(await h.coord.commitOffsets(input(a, { generationId: 1, memberId: 'm-1' }), [offset(0, 1)])).toEqual([
      E.NONE,
    ]);
    expect(await h.coord.commitOffsets(input(a, { generationId: 0, memberId: 'm-1' }), [offset(0, 1)])).toEqual([
      E.STALE_MEMBER_EPOCH,
    ]);
    expect(await h.coord.commitOffsets(input(a, { generationId: 1, memberId: 'm-9' }), [offset(0, 1)])).toEqual([
      E.UNKNOWN_MEMBER_ID,
    ]);
  });
});
