// The transaction coordinator's cleanup pass (Kafka's TransactionCoordinator.abortTimedOutTransactions
// and transactional id expiration) and what it does when storage fails; the checks of each request
// are coordinator.test.ts.
import { ErrorCode as E } from '../../src/protocol/error-codes';
import { silentLogger } from '../../src/logger';
import { StorageError } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { TransactionCoordinator } from '../../src/transactions/coordinator';
import { begin, harness, t } from './harness';

describe('the cleanup pass', () => {
  it('aborts a transaction past its timeout with an epoch bump, once, and tells the fetch waiters', async () => {
    const h = harness({ cleanupIntervalMs: 1000 });
    const a = await begin(h, 'tx', 5000);
    await h.coord.addPartitions('tx', a, [t(0)]);
    h.produce(a, 0);
    await h.timers.advanceAsync(5000);
    expect(h.info()!.state).toBe('Ongoing'); // started + timeout is not yet < now
    await h.timers.advanceAsync(1000);
    expect(h.info()).toMatchObject({ state: 'CompleteAbort', producerEpoch: a.producerEpoch + 1 });
    expect(h.marked).toEqual([[t(0)]]);
    expect(h.storage.read('t', 0, 0, 1e6, true, true).abortedTransactions).toHaveLength(1);
    // The zombie is fenced: its writes, its EndTxn.
    expect(h.produce(a, 0).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect((await h.coord.endTransaction('tx', a, false)).errorCode).toBe(E.PRODUCER_FENCED);
    await h.timers.advanceAsync(10_000);
    expect(h.marked).toHaveLength(1);
  });

  it('leaves a transaction within its timeout alone', async () => {
    const h = harness({ cleanupIntervalMs: 1000 });
    const a = await begin(h, 'tx', 60_000);
    await h.coord.addPartitions('tx', a, [t(0)]);
    await h.timers.advanceAsync(30_000);
    expect(h.info()!.state).toBe('Ongoing');
    expect((await h.coord.endTransaction('tx', a, true)).errorCode).toBe(E.NONE);
  });

  it('expires ids idle for transactional.id.expiration.ms, never an ongoing one', async () => {
    const h = harness({ cleanupIntervalMs: 1000, idExpirationMs: 10_000 });
    await begin(h, 'idle');
    const a = await begin(h, 'busy', 900_000);
    await h.coord.addPartitions('busy', a, [t(0)]);
    await h.timers.advanceAsync(9000);
    expect(h.info('idle')).toBeDefined();
    await h.timers.advanceAsync(2000);
    expect(h.info('idle')).toBeUndefined();
    expect(h.info('busy')!.state).toBe('Ongoing');
    // An expired id starts over.
    expect(await h.coord.initProducerId('idle', 60_000, null)).toMatchObject({ errorCode: E.NONE, producerEpoch: 0 });
  });

  it('stops with close(), and requests then get NOT_COORDINATOR', async () => {
    const h = harness({ cleanupIntervalMs: 1000 });
    const a = await begin(h, 'tx', 1000);
    await h.coord.addPartitions('tx', a, [t(0)]);
    h.coord.close();
    await h.timers.advanceAsync(10_000);
    expect(h.info()!.state).toBe('Ongoing');
    expect(h.timers.pending).toBe(0);
    expect((await h.coord.endTransaction('tx', a, true)).errorCode).toBe(E.NOT_COORDINATOR);
    expect((await h.coord.initProducerId('tx', 1000, null)).errorCode).toBe(E.NOT_COORDINATOR);
  });

  it('finds transactions opened before a restart (a new coordinator on the same storage)', async () => {
    const h = harness({ cleanupIntervalMs: 1000 });
    const a = await begin(h, 'tx', 5000);
    await h.coord.addPartitions('tx', a, [t(0)]);
    h.coord.close();
    const again = new TransactionCoordinator({
      storage: promised(h.storage),
      logger: silentLogger,
      now: h.timers.now,
      timers: h.timers,
      cleanupIntervalMs: 1000,
    });
    await h.timers.advanceAsync(6000);
    expect(h.info()!.state).toBe('CompleteAbort');
    again.close();
  });
});

describe('storage failures', () => {
  it('answer COORDINATOR_NOT_AVAILABLE (retriable), tell onStorageError, and leave the state as it was', async () => {
    const failing = new Set<string>();
    const errors: StorageError[] = [];
    const h = harness({ onStorageError: (e) => errors.push(e) });
    // The coordinator sees the storage through a proxy that fails the calls named in `failing`.
    const storage = new Proxy(promised(h.storage), {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (failing.has(String(prop))) throw new StorageError('database or disk is full', { code: 'SQLITE_FULL' });
          return v.apply(target, args);
        };
      },
    });
    const coord = new TransactionCoordinator({
      storage,
      logger: silentLogger,
      now: h.timers.now,
      timers: h.timers,
      onStorageError: (e) => errors.push(e),
    });
    const a = await coord.initProducerId('tx', 60_000, null);
    expect(await coord.addPartitions('tx', a, [t(0)])).toBe(E.NONE);
    failing.add('endTransaction');
    expect(await coord.endTransaction('tx', a, true)).toEqual({
      errorCode: E.COORDINATOR_NOT_AVAILABLE,
      producerId: -1,
      producerEpoch: -1,
    });
    expect(errors.map((e) => e.diskFull)).toEqual([true]);
    expect(h.info()!.state).toBe('Ongoing');
    failing.add('initTransaction');
    expect((await coord.initProducerId('tx', 60_000, null)).errorCode).toBe(E.COORDINATOR_NOT_AVAILABLE);
    failing.add('addToTransaction');
    expect(await coord.addOffsets('tx', a, 'g')).toBe(E.COORDINATOR_NOT_AVAILABLE);
    failing.clear();
    expect((await coord.endTransaction('tx', a, true)).errorCode).toBe(E.NONE);
    coord.close();
  });

  it('a failing cleanup pass is logged and retried at the next one', async () => {
    const h = harness({ cleanupIntervalMs: 1000 });
    const a = await begin(h, 'tx', 1000);
    await h.coord.addPartitions('tx', a, [t(0)]);
    const real = h.storage.endTransaction.bind(h.storage);
    let fail = true;
    h.storage.endTransaction = (...args) => {
      if (fail) throw new StorageError('disk I/O error', { code: 'SQLITE_IOERR_WRITE' });
      return real(...args);
    };
    await h.timers.advanceAsync(2000);
    expect(h.info()!.state).toBe('Ongoing');
    fail = false;
    await h.timers.advanceAsync(1000);
    expect(h.info()!.state).toBe('CompleteAbort');
  });
});
