// Issue 18: the coordinator reads a transactional id's state, awaits, then writes. Over storage
// that answers its reads a turn of the event loop late (as a network engine would), two requests
// for one id still run one after the other (server/keyed-serial.ts), as Kafka's lock on the
// transaction metadata makes them.
import { ErrorCode as E } from '../../src/protocol/error-codes';
import { silentLogger } from '../../src/logger';
import type { Storage, TxnPartition } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { TransactionCoordinator } from '../../src/transactions/coordinator';
import { harness, t } from './harness';

const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));

function slowCoordinator(h: ReturnType<typeof harness>, marked: TxnPartition[][]) {
  const fast = promised(h.storage);
  const storage: Storage = { ...fast, transaction: (id) => fast.transaction(id).then(later) };
  return new TransactionCoordinator({
    storage,
    logger: silentLogger,
    now: h.timers.now,
    timers: h.timers,
    onMarked: (p) => marked.push([...p]),
  });
}

describe('one request per transactional id at a time (slow reads)', () => {
  it('two EndTxn(commit) at once: the transaction commits once, the retry is answered NONE', async () => {
    const h = harness();
    const marked: TxnPartition[][] = [];
    const coord = slowCoordinator(h, marked);
    const a = await coord.initProducerId('tx', 60_000, null);
    expect(await coord.addPartitions('tx', a, [t(0), t(1)])).toBe(E.NONE);
    const [first, second] = await Promise.all([
      coord.endTransaction('tx', a, true),
      coord.endTransaction('tx', a, true),
    ]);
    expect([first.errorCode, second.errorCode]).toEqual([E.NONE, E.NONE]);
    expect(marked).toEqual([[t(0), t(1)]]); // one set of markers
    expect(h.info()!.state).toBe('CompleteCommit');
    coord.close();
  });

  it('two InitProducerId at once: each bump fences the one before it, epochs 0 then 1', async () => {
    const h = harness();
    const coord = slowCoordinator(h, []);
    const [x, y] = await Promise.all([
      coord.initProducerId('tx', 60_000, null),
      coord.initProducerId('tx', 60_000, null),
    ]);
    expect([x.errorCode, y.errorCode]).toEqual([E.NONE, E.NONE]);
    expect([x.producerEpoch, y.producerEpoch]).toEqual([0, 1]);
    expect(await coord.addPartitions('tx', x, [t(0)])).toBe(E.PRODUCER_FENCED);
    expect(await coord.addPartitions('tx', y, [t(0)])).toBe(E.NONE);
    coord.close();
  });
});
