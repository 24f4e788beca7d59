// The transaction APIs over a real connection (memory engine): the request shapes and versions,
// the error mapping by version, and the read side (Fetch and ListOffsets read_committed, the
// long poll woken by a marker, OffsetFetch require_stable).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode as E } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { txnProduceRequest } from './harness';
import { startTestBroker } from '../integration/helpers';

describe('transaction API handlers', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  let seq = 0;

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { transactionMaxTimeoutMs: 100_000 } });
    await broker.context.storage.createTopic('t', 2, {});
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn?.close();
    await broker?.stop();
  });

  const init = async (transactionalId: string, v = 4, over = {}) =>
    conn.send(ApiKey.InitProducerId, v, {
      ...m.defaultInitProducerIdRequest(),
      transactionalId,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
      ...over,
    });
  const addPartitions = (id: string, p: { producerId: bigint; producerEpoch: number }, topics: unknown, v = 3) =>
    conn.send(ApiKey.AddPartitionsToTxn, v, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: p.producerId,
      v3AndBelowProducerEpoch: p.producerEpoch,
      v3AndBelowTopics: topics,
    });
  const produce = (id: string, p: { producerId: bigint; producerEpoch: number }, partition: number, value: string) =>
    conn.send(ApiKey.Produce, 9, txnProduceRequest(id, 't', partition, p, value, seq++));
  const endTxn = (id: string, p: { producerId: bigint; producerEpoch: number }, committed: boolean, v = 3) =>
    conn.send(ApiKey.EndTxn, v, { transactionalId: id, ...p, committed });
  const fetch = (
    partition: number,
    fetchOffset: bigint,
    isolationLevel: number,
    wait = { minBytes: 0, maxWaitMs: 0 },
  ) =>
    conn.send(ApiKey.Fetch, 11, {
      ...m.defaultFetchRequest(),
      ...wait,
      maxBytes: 1 << 20,
      isolationLevel,
      topics: [{ topic: 't', partitions: [{ partition, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
    });
  const latest = async (partition: number, isolationLevel: number) =>
    (
      await conn.send(ApiKey.ListOffsets, 5, {
        replicaId: -1,
        isolationLevel,
        topics: [{ name: 't', partitions: [{ partitionIndex: partition, timestamp: -1n, currentLeaderEpoch: -1 }] }],
      })
    ).topics[0].partitions[0].offset;

  it('finds this broker as the coordinator of a transactional id', async () => {
    const r = await conn.send(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['any'] });
    expect(r.coordinators[0]).toMatchObject({ key: 'any', errorCode: E.NONE, port: broker.port });
  });

  it('InitProducerId: timeouts, half-given ids, fencing by version', async () => {
    expect((await init('h-init', 4, { transactionTimeoutMs: 100_001 })).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect((await init('h-init', 4, { producerId: -1n, producerEpoch: 3 })).errorCode).toBe(E.INVALID_REQUEST);
    const a = await init('h-init');
    expect(a).toMatchObject({ errorCode: E.NONE, producerEpoch: 0 });
    const b = await init('h-init');
    expect(b).toMatchObject({ errorCode: E.NONE, producerId: a.producerId, producerEpoch: 1 });
    // a, fenced, asks to recover (KIP-360): PRODUCER_FENCED from v4, INVALID_PRODUCER_EPOCH before.
    const stale = { producerId: a.producerId, producerEpoch: 0 };
    expect(await init('h-init', 4, stale)).toMatchObject({ errorCode: E.PRODUCER_FENCED, producerId: -1n });
    expect((await init('h-init', 3, stale)).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
  });

  it('AddPartitionsToTxn: unknown partitions fail the request, the rest OPERATION_NOT_ATTEMPTED', async () => {
    const p = await init('h-add');
    const r = await addPartitions('h-add', p, [
      { name: 't', partitions: [0, 9] },
      { name: 'nope', partitions: [0] },
    ]);
    expect(r.resultsByTopicV3AndBelow).toEqual([
      {
        name: 't',
        resultsByPartition: [
          { partitionIndex: 0, partitionErrorCode: E.OPERATION_NOT_ATTEMPTED },
          { partitionIndex: 9, partitionErrorCode: E.UNKNOWN_TOPIC_OR_PARTITION },
        ],
      },
      { name: 'nope', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] },
    ]);
    expect((await broker.context.storage.transaction('h-add'))!.state).toBe('Empty');
    const ok = await addPartitions('h-add', p, [{ name: 't', partitions: [0, 0, 1] }]);
    expect(ok.resultsByTopicV3AndBelow[0].resultsByPartition).toEqual([
      { partitionIndex: 0, partitionErrorCode: E.NONE },
      { partitionIndex: 1, partitionErrorCode: E.NONE },
    ]);
    const old = { ...p, producerEpoch: p.producerEpoch - 1 };
    for (const [v, code] of [
      [1, E.INVALID_PRODUCER_EPOCH],
      [2, E.PRODUCER_FENCED],
    ] as const) {
      const fenced = await addPartitions('h-add', old, [{ name: 't', partitions: [0] }], v);
      expect(fenced.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(code);
    }
    expect((await endTxn('h-add', p, false)).errorCode).toBe(E.NONE);
  });

  it('read_committed: nothing past the LSO, LATEST is the LSO, a waiting fetch wakes on the marker', async () => {
    const p = await init('h-read');
    await addPartitions('h-read', p, [{ name: 't', partitions: [1] }]);
    const before = (await broker.context.storage.offsets('t', 1))!.highWatermark;
    expect((await produce('h-read', p, 1, 'txn-1')).responses[0].partitionResponses[0].errorCode).toBe(E.NONE);
    const open = (await fetch(1, BigInt(before), 1)).responses[0].partitions[0];
    expect(open).toMatchObject({
      highWatermark: BigInt(before + 1),
      lastStableOffset: BigInt(before),
      abortedTransactions: [],
    });
    expect(open.records.length).toBe(0);
    expect((await fetch(1, BigInt(before), 0)).responses[0].partitions[0].records.length).toBeGreaterThan(0);
    expect(await latest(1, 1)).toBe(BigInt(before));
    expect(await latest(1, 0)).toBe(BigInt(before + 1));

    // A read_committed long poll (a minute) is answered once the marker is written, not at its deadline.
    const waiting = fetch(1, BigInt(before), 1, { minBytes: 1, maxWaitMs: 60_000 });
    const ended = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      expect((await ended.send(ApiKey.EndTxn, 3, { transactionalId: 'h-read', ...p, committed: true })).errorCode).toBe(
        E.NONE,
      );
    } finally {
      ended.close();
    }
    const woken = (await waiting).responses[0].partitions[0];
    expect(woken.lastStableOffset).toBe(BigInt(before + 2));
    expect(woken.records.length).toBeGreaterThan(0);
    expect(await latest(1, 1)).toBe(BigInt(before + 2));
  }, 30_000);

  it('read_committed gets the aborted ranges of what it reads', async () => {
    const p = await init('h-abort');
    await addPartitions('h-abort', p, [{ name: 't', partitions: [0] }]);
    const before = (await broker.context.storage.offsets('t', 0))!.highWatermark;
    await produce('h-abort', p, 0, 'gone');
    expect((await endTxn('h-abort', p, false)).errorCode).toBe(E.NONE);
    const read = (await fetch(0, BigInt(before), 1)).responses[0].partitions[0];
    expect(read.abortedTransactions).toEqual([{ producerId: p.producerId, firstOffset: BigInt(before) }]);
    expect((await fetch(0, BigInt(before), 0)).responses[0].partitions[0].abortedTransactions).toBeNull();
  });

  it('EndTxn: a retry is NONE, the opposite INVALID_TXN_STATE, an old epoch fenced by version', async () => {
    const p = await init('h-end');
    await addPartitions('h-end', p, [{ name: 't', partitions: [0] }]);
    expect(await endTxn('h-end', p, true)).toMatchObject({ errorCode: E.NONE });
    expect((await endTxn('h-end', p, true)).errorCode).toBe(E.NONE);
    expect((await endTxn('h-end', p, false)).errorCode).toBe(E.INVALID_TXN_STATE);
    const q = await init('h-end');
    expect((await endTxn('h-end', p, true, 1)).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect((await endTxn('h-end', p, true, 2)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await endTxn('h-end', q, true)).errorCode).toBe(E.INVALID_TXN_STATE); // Empty
    expect((await endTxn('h-none', q, true)).errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
  });

  it('TxnOffsetCommit stages offsets; OffsetFetch require_stable says UNSTABLE_OFFSET_COMMIT until the commit', async () => {
    const p = await init('h-offsets');
    expect(
      (await conn.send(ApiKey.AddOffsetsToTxn, 3, { transactionalId: 'h-offsets', ...p, groupId: 'h-g' })).errorCode,
    ).toBe(E.NONE);
    const commit = await conn.send(ApiKey.TxnOffsetCommit, 3, {
      ...m.defaultTxnOffsetCommitRequest(),
      transactionalId: 'h-offsets',
      groupId: 'h-g',
      ...p,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: 'md' },
            { partitionIndex: 5, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null },
          ],
        },
        { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] },
      ],
    });
    expect(commit.topics).toEqual([
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, errorCode: E.NONE },
          { partitionIndex: 5, errorCode: E.UNKNOWN_TOPIC_OR_PARTITION },
        ],
      },
      { name: 'nope', partitions: [{ partitionIndex: 0, errorCode: E.UNKNOWN_TOPIC_OR_PARTITION }] },
    ]);
    const offsetFetch = async (requireStable: boolean) =>
      (
        await conn.send(ApiKey.OffsetFetch, 7, {
          ...m.defaultOffsetFetchRequest(),
          groupId: 'h-g',
          topics: [{ name: 't', partitionIndexes: [0, 1] }],
          requireStable,
        })
      ).topics[0].partitions;
    expect(await offsetFetch(true)).toEqual([
      expect.objectContaining({ partitionIndex: 0, committedOffset: -1n, errorCode: E.UNSTABLE_OFFSET_COMMIT }),
      expect.objectContaining({ partitionIndex: 1, committedOffset: -1n, errorCode: E.NONE }),
    ]);
    expect((await offsetFetch(false))[0]).toMatchObject({ committedOffset: -1n, errorCode: E.NONE });
    expect((await endTxn('h-offsets', p, true)).errorCode).toBe(E.NONE);
    expect((await offsetFetch(true))[0]).toMatchObject({ committedOffset: 7n, metadata: 'md', errorCode: E.NONE });
  });

  it('lists and describes transactions with Kafka state names and filters', async () => {
    const p = await init('h-list');
    await addPartitions('h-list', p, [{ name: 't', partitions: [1, 0] }]);
    const list = await conn.send(ApiKey.ListTransactions, 1, {
      stateFilters: ['Ongoing', 'Bogus'],
      producerIdFilters: [p.producerId],
      durationFilter: -1n,
    });
    expect(list).toMatchObject({
      errorCode: E.NONE,
      unknownStateFilters: ['Bogus'],
      transactionStates: [{ transactionalId: 'h-list', producerId: p.producerId, transactionState: 'Ongoing' }],
    });
    const longRunning = await conn.send(ApiKey.ListTransactions, 1, {
      stateFilters: ['Ongoing'],
      producerIdFilters: [],
      durationFilter: 3_600_000n,
    });
    expect(longRunning.transactionStates).toEqual([]);
    const d = await conn.send(ApiKey.DescribeTransactions, 0, { transactionalIds: ['h-list', 'h-unknown', ''] });
    expect(d.transactionStates).toEqual([
      expect.objectContaining({
        errorCode: E.NONE,
        transactionalId: 'h-list',
        transactionState: 'Ongoing',
        producerId: p.producerId,
        producerEpoch: p.producerEpoch,
        transactionTimeoutMs: 60_000,
        topics: [{ topic: 't', partitions: [0, 1] }],
      }),
      expect.objectContaining({ errorCode: E.TRANSACTIONAL_ID_NOT_FOUND, transactionalId: 'h-unknown' }),
      expect.objectContaining({ errorCode: E.INVALID_REQUEST, transactionalId: '' }),
    ]);
    await endTxn('h-list', p, false);
  });
});

// KafkaApis' authorization of the transaction APIs: a principal without ACLs gets Kafka's error in
// Kafka's place and changes nothing; ids it may not DESCRIBE are left out of ListTransactions.
describe('transaction API authorization', () => {
  let broker: RunningBroker;
  let mallory: KafkaConnection;
  let admin: KafkaConnection;
  const p = { producerId: 0n, producerEpoch: 0 };

  beforeAll(async () => {
    broker = await startTestBroker('memory://', {
      config: { allowEveryoneIfNoAclFound: false, superUsers: ['User:admin'] },
      testOnlyPrincipalForClientId: (clientId) =>
        clientId === 'admin' || clientId === 'mallory' ? { principalType: 'User', name: clientId } : undefined,
    });
    await broker.context.storage.createTopic('t', 1, {});
    mallory = await KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'mallory' });
    admin = await KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'admin' });
    const init = await admin.send(ApiKey.InitProducerId, 4, {
      ...m.defaultInitProducerIdRequest(),
      transactionalId: 'a-tx',
      transactionTimeoutMs: 60_000,
    });
    Object.assign(p, { producerId: init.producerId, producerEpoch: init.producerEpoch });
  });
  afterAll(async () => {
    mallory?.close();
    admin?.close();
    await broker?.stop();
  });

  const REFUSED = E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  it.each<[string, number, number, () => unknown, (r: any) => unknown, unknown]>([
    [
      'FindCoordinator key type 1',
      ApiKey.FindCoordinator,
      4,
      () => ({ keyType: 1, coordinatorKeys: ['a-tx'] }),
      (r) => r.coordinators.map((c: any) => c.errorCode),
      [REFUSED],
    ],
    [
      'InitProducerId',
      ApiKey.InitProducerId,
      4,
      () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: 'a-tx', transactionTimeoutMs: 60_000 }),
      (r) => [r.errorCode, r.producerId],
      [REFUSED, -1n],
    ],
    [
      'AddPartitionsToTxn',
      ApiKey.AddPartitionsToTxn,
      3,
      () => ({
        v3AndBelowTransactionalId: 'a-tx',
        v3AndBelowProducerId: p.producerId,
        v3AndBelowProducerEpoch: p.producerEpoch,
        v3AndBelowTopics: [{ name: 't', partitions: [0] }],
      }),
      (r) => r.resultsByTopicV3AndBelow[0].resultsByPartition.map((x: any) => x.partitionErrorCode),
      [REFUSED],
    ],
    [
      'AddOffsetsToTxn',
      ApiKey.AddOffsetsToTxn,
      3,
      () => ({ transactionalId: 'a-tx', ...p, groupId: 'g' }),
      (r) => r.errorCode,
      REFUSED,
    ],
    [
      'TxnOffsetCommit',
      ApiKey.TxnOffsetCommit,
      3,
      () => ({
        ...m.defaultTxnOffsetCommitRequest(),
        transactionalId: 'a-tx',
        groupId: 'g',
        ...p,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
      }),
      (r) => r.topics[0].partitions.map((x: any) => x.errorCode),
      [REFUSED],
    ],
    [
      'EndTxn',
      ApiKey.EndTxn,
      3,
      () => ({ transactionalId: 'a-tx', ...p, committed: true }),
      (r) => r.errorCode,
      REFUSED,
    ],
    [
      'DescribeTransactions',
      ApiKey.DescribeTransactions,
      0,
      () => ({ transactionalIds: ['a-tx'] }),
      (r) => r.transactionStates.map((s: any) => s.errorCode),
      [REFUSED],
    ],
    [
      'ListTransactions (filtered, not refused)',
      ApiKey.ListTransactions,
      1,
      () => ({ stateFilters: [], producerIdFilters: [], durationFilter: -1n }),
      (r) => [r.errorCode, r.transactionStates],
      [E.NONE, []],
    ],
  ])('refuses %s', async (_name, key, v, body, codes, want) => {
    expect(codes(await mallory.send(key, v, body()))).toEqual(want);
  });

  it('changed nothing, and a super user is served', async () => {
    expect(await broker.context.storage.transaction('a-tx')).toMatchObject({
      state: 'Empty',
      producerEpoch: p.producerEpoch,
    });
    const list = await admin.send(ApiKey.ListTransactions, 1, {
      stateFilters: [],
      producerIdFilters: [],
      durationFilter: -1n,
    });
    expect(list.transactionStates).toEqual([
      { transactionalId: 'a-tx', producerId: p.producerId, transactionState: 'Empty' },
    ]);
  });
});
