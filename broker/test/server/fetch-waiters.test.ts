import { FetchWaiters, partitionKey } from '../../src/server/fetch-waiters';

describe('FetchWaiters', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('wakes only the waiters of the partition that got an append', async () => {
    const w = new FetchWaiters();
    const woke: string[] = [];
    void w.wait([partitionKey('t', 0)], 60_000).then(() => woke.push('t0'));
    void w.wait([partitionKey('t', 1), partitionKey('u', 0)], 60_000).then(() => woke.push('t1|u0'));
    w.notify(partitionKey('u', 0));
    await Promise.resolve();
    expect(woke).toEqual(['t1|u0']);
    expect(w.size).toBe(1);
    jest.advanceTimersByTime(60_000);
    await Promise.resolve();
    expect(woke).toEqual(['t1|u0', 't0']);
    expect(w.size).toBe(0);
  });

  it('close() wakes everyone and later waits return at once', async () => {
    const w = new FetchWaiters();
    const p = w.wait([partitionKey('t', 0)], 60_000);
    w.close();
    await p;
    await w.wait([partitionKey('t', 0)], 60_000);
    expect(w.isClosed).toBe(true);
  });

  it('close() wakes a waiter that waits on no partition (issue 11: it held shutdown for max_wait_ms)', async () => {
    const w = new FetchWaiters();
    let woke = false;
    const p = w.wait([], 2 ** 31 - 1).then(() => (woke = true));
    expect(w.size).toBe(1);
    w.close();
    await p;
    expect(woke).toBe(true);
    expect(w.size).toBe(0);
  });
});
