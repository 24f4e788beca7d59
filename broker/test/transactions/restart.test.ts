// Transactions across a broker restart on SQLite: the coordinator keeps nothing that matters in
// memory, so an open transaction goes on after a restart (its producer commits it), and one left
// open times out and is aborted by the restarted broker's cleanup pass.
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode as E } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { txnProduceRequest } from './harness';
import { startTestBroker, tempDir } from '../integration/helpers';

describe('transactions across a restart (sqlite)', () => {
  const tmp = tempDir();
  const url = `sqlite://${path.join(tmp.dir, 'txn.db')}`;
  let broker: RunningBroker | undefined;
  const start = async () => (broker = await startTestBroker(url, { config: { transactionCleanupIntervalMs: 100 } }));
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  async function open(conn: KafkaConnection, id: string, timeoutMs: number, value: string) {
    const init = await conn.send(ApiKey.InitProducerId, 4, {
      ...m.defaultInitProducerIdRequest(),
      transactionalId: id,
      transactionTimeoutMs: timeoutMs,
    });
    expect(init.errorCode).toBe(E.NONE);
    const p = { producerId: init.producerId as bigint, producerEpoch: init.producerEpoch as number };
    const partition = id === 'goes-on' ? 0 : 1;
    const added = await conn.send(ApiKey.AddPartitionsToTxn, 3, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: p.producerId,
      v3AndBelowProducerEpoch: p.producerEpoch,
      v3AndBelowTopics: [{ name: 't', partitions: [partition] }],
    });
    expect(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.NONE);
    const produced = await conn.send(ApiKey.Produce, 9, txnProduceRequest(id, 't', partition, p, value, 0));
    expect(produced.responses[0].partitionResponses[0].errorCode).toBe(E.NONE);
    return p;
  }

  it('goes on with an open transaction, and times out one left open', async () => {
    await start();
    await broker!.context.storage.createTopic('t', 2, {});
    let conn = await KafkaConnection.connect('127.0.0.1', broker!.port);
    const live = await open(conn, 'goes-on', 600_000, 'kept');
    // Long enough not to time out before the restart below, short enough to after it.
    const left = await open(conn, 'left-open', 3000, 'dropped');
    conn.close();
    expect(await broker!.context.storage.lastStableOffset('t', 1)).toBe(0);
    await broker!.stop();

    await start();
    const { storage } = broker!.context;
    expect(await storage.transaction('goes-on')).toMatchObject({
      state: 'Ongoing',
      partitions: [{ topic: 't', partition: 0 }],
    });
    expect(await storage.lastStableOffset('t', 0)).toBe(0);
    conn = await KafkaConnection.connect('127.0.0.1', broker!.port);
    try {
      const ended = await conn.send(ApiKey.EndTxn, 3, { transactionalId: 'goes-on', ...live, committed: true });
      expect(ended.errorCode).toBe(E.NONE);
      expect(await storage.lastStableOffset('t', 0)).toBe(2);

      // The restarted broker's cleanup pass finds the other one and aborts it, fencing its producer.
      const deadline = Date.now() + 20_000;
      while ((await storage.transaction('left-open'))!.state === 'Ongoing' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await storage.transaction('left-open')).toMatchObject({
        state: 'CompleteAbort',
        producerEpoch: left.producerEpoch + 1,
      });
      expect(await storage.lastStableOffset('t', 1)).toBe(2);
      const late = await conn.send(ApiKey.EndTxn, 3, { transactionalId: 'left-open', ...left, committed: true });
      expect(late.errorCode).toBe(E.PRODUCER_FENCED);
    } finally {
      conn.close();
    }
  }, 40_000);

  // Transaction version 2: the bumped epoch is stored with the markers, so after a restart the
  // producer goes on with it, a retry of its EndTxn still gets it, and the ended epoch stays fenced.
  it('keeps transaction version 2 epochs across a restart', async () => {
    await broker?.stop();
    await start();
    if (!(await broker!.context.storage.topic('t'))) await broker!.context.storage.createTopic('t', 2, {});
    let conn = await KafkaConnection.connect('127.0.0.1', broker!.port);
    const init = await conn.send(ApiKey.InitProducerId, 5, {
      ...m.defaultInitProducerIdRequest(),
      transactionalId: 'v2',
      transactionTimeoutMs: 600_000,
    });
    const p = { producerId: init.producerId as bigint, producerEpoch: init.producerEpoch as number };
    const produced = await conn.send(ApiKey.Produce, 12, txnProduceRequest('v2', 't', 0, p, 'x', 0));
    expect(produced.responses[0].partitionResponses[0].errorCode).toBe(E.NONE);
    const ended = await conn.send(ApiKey.EndTxn, 5, { transactionalId: 'v2', ...p, committed: true });
    expect(ended).toMatchObject({ errorCode: E.NONE, producerEpoch: p.producerEpoch + 1 });
    conn.close();
    await broker!.stop();

    await start();
    conn = await KafkaConnection.connect('127.0.0.1', broker!.port);
    const retry = await conn.send(ApiKey.EndTxn, 5, { transactionalId: 'v2', ...p, committed: true });
    expect(retry).toMatchObject({ errorCode: E.NONE, producerId: p.producerId, producerEpoch: p.producerEpoch + 1 });
    const late = await conn.send(ApiKey.Produce, 12, txnProduceRequest('v2', 't', 0, p, 'late', 1));
    expect(late.responses[0].partitionResponses[0].errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    const next = { producerId: p.producerId, producerEpoch: p.producerEpoch + 1 };
    const again = await conn.send(ApiKey.Produce, 12, txnProduceRequest('v2', 't', 0, next, 'y', 0));
    expect(again.responses[0].partitionResponses[0].errorCode).toBe(E.NONE);
    conn.close();
  });
});
