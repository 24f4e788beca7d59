// Transaction version 2's requests over a real connection (memory engine), as a Java 4.x producer
// sends them: Produce v12 adds its partitions to the transaction (v11 without AddPartitionsToTxn is
// refused, TRANSACTION_ABORTABLE as Kafka answers it), TxnOffsetCommit v5 adds the group, EndTxn v5 answers the bumped epoch, and the ended
// epoch's produce is refused INVALID_PRODUCER_EPOCH (the coordinator's PRODUCER_FENCED, as Kafka's
// AddPartitionsToTxnManager maps it for Produce).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode as E } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from '../integration/helpers';
import { txnProduceRequest } from './harness';

type Producer = { producerId: bigint; producerEpoch: number };

describe('transaction version 2 requests', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;

  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    await broker.context.storage.createTopic('t', 2, {});
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn?.close();
    await broker?.stop();
  });

  const init = async (transactionalId: string): Promise<Producer> => {
    const r = await conn.send(ApiKey.InitProducerId, 5, {
      ...m.defaultInitProducerIdRequest(),
      transactionalId,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    expect(r.errorCode).toBe(E.NONE);
    return { producerId: r.producerId, producerEpoch: r.producerEpoch };
  };
  const produce = async (v: number, id: string, p: Producer, partition: number, value: string, seq: number) =>
    (await conn.send(ApiKey.Produce, v, txnProduceRequest(id, 't', partition, p, value, seq))).responses[0]
      .partitionResponses[0];
  const endTxn = (id: string, p: Producer, committed: boolean, v = 5) =>
    conn.send(ApiKey.EndTxn, v, { transactionalId: id, ...p, committed });

  it('Produce v11 of a partition not added is TRANSACTION_ABORTABLE (v10: INVALID_TXN_STATE); v12 adds it', async () => {
    const p = await init('v2-produce');
    expect((await produce(10, 'v2-produce', p, 0, 'a', 0)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await produce(11, 'v2-produce', p, 0, 'a', 0)).errorCode).toBe(E.TRANSACTION_ABORTABLE);
    expect(await produce(12, 'v2-produce', p, 0, 'a', 0)).toMatchObject({ errorCode: E.NONE });
    await expect(broker.context.storage.transaction('v2-produce')).resolves.toMatchObject({
      state: 'Ongoing',
      partitions: [{ topic: 't', partition: 0 }],
    });
  });

  it('EndTxn v5 answers the bumped epoch; the ended epoch is refused, the new one writes', async () => {
    const p = await init('v2-end');
    expect((await produce(12, 'v2-end', p, 1, 'a', 0)).errorCode).toBe(E.NONE);
    const ended = await endTxn('v2-end', p, true);
    expect(ended).toMatchObject({ errorCode: E.NONE, producerId: p.producerId, producerEpoch: p.producerEpoch + 1 });
    const late = await produce(12, 'v2-end', p, 1, 'late', 1);
    expect(late).toMatchObject({ errorCode: E.INVALID_PRODUCER_EPOCH, baseOffset: -1n });
    const next = { producerId: ended.producerId, producerEpoch: ended.producerEpoch };
    expect((await produce(12, 'v2-end', next, 1, 'b', 0)).errorCode).toBe(E.NONE);
    // A retry of the first EndTxn is fenced now: the transaction after it is Ongoing (Kafka's table).
    expect((await endTxn('v2-end', p, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect(await endTxn('v2-end', next, false)).toMatchObject({
      errorCode: E.NONE,
      producerEpoch: next.producerEpoch + 1,
    });
  });

  it('EndTxn v4 keeps the epoch (transaction version 1 clients)', async () => {
    const p = await init('v1-end');
    await conn.send(ApiKey.AddPartitionsToTxn, 3, {
      v3AndBelowTransactionalId: 'v1-end',
      v3AndBelowProducerId: p.producerId,
      v3AndBelowProducerEpoch: p.producerEpoch,
      v3AndBelowTopics: [{ name: 't', partitions: [0] }],
    });
    expect((await produce(11, 'v1-end', p, 0, 'a', 0)).errorCode).toBe(E.NONE);
    expect((await endTxn('v1-end', p, true, 4)).errorCode).toBe(E.NONE);
    expect(await broker.context.storage.transaction('v1-end')).toMatchObject({ producerEpoch: p.producerEpoch });
  });

  it('TxnOffsetCommit v5 adds the group (no AddOffsetsToTxn); v4 without it is INVALID_TXN_STATE', async () => {
    const p = await init('v2-offsets');
    const commit = (v: number) =>
      conn.send(ApiKey.TxnOffsetCommit, v, {
        ...m.defaultTxnOffsetCommitRequest(),
        transactionalId: 'v2-offsets',
        groupId: 'v2-group',
        producerId: p.producerId,
        producerEpoch: p.producerEpoch,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedMetadata: '' }] }],
      });
    expect((await commit(4)).topics[0].partitions[0].errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await commit(5)).topics[0].partitions[0].errorCode).toBe(E.NONE);
    expect((await endTxn('v2-offsets', p, true)).errorCode).toBe(E.NONE);
    const fetched = await conn.send(ApiKey.OffsetFetch, 7, {
      groupId: 'v2-group',
      topics: [{ name: 't', partitionIndexes: [0] }],
      requireStable: true,
    });
    expect(fetched.topics[0].partitions[0]).toMatchObject({ committedOffset: 7n, errorCode: E.NONE });
  });
});
