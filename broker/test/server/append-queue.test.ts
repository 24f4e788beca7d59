import { AppendQueue } from '../../src/server/append-queue';
import { silentLogger } from '../../src/logger';
import { encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import { ErrorCode } from '../../src/protocol/error-codes';
import { openSyncStorage } from '../../src/storage/open-storage';
import type { PartitionAppend, PartitionAppendResult, Storage, SyncStorage } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';

const part = (topic: string, value: string): PartitionAppend => {
  const data = encodeRecordBatch({ records: [{ value: Buffer.from(value) }] });
  return { topic, partition: 0, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false };
};

describe('AppendQueue (group commit)', () => {
  it('appends requests that arrive in the same turn in one transaction, each getting its own results', async () => {
    const storage = openSyncStorage('memory://');
    storage.createTopic('a', 1, {});
    storage.createTopic('b', 1, {});
    const calls: number[] = [];
    const spy: Storage = {
      ...promised(storage),
      append: async (parts, now) => {
        calls.push(parts.length);
        return storage.append(parts, now);
      },
    };
    const woken: string[] = [];
    const q = new AppendQueue(spy, silentLogger, (parts) => woken.push(...parts.map((p) => p.topic)));
    const [r1, r2, r3] = await Promise.all([
      q.append([part('a', 'x')]),
      q.append([part('b', 'y'), part('a', 'z')]),
      q.append([part('nope', 'w')]),
    ]);
    expect(calls).toEqual([4]);
    expect(q.stats).toEqual({ transactions: 1, requests: 3 });
    expect(r1!.map((r) => [r.errorCode, r.baseOffset])).toEqual([[ErrorCode.NONE, 0]]);
    expect(r2!.map((r) => [r.errorCode, r.baseOffset])).toEqual([
      [ErrorCode.NONE, 0],
      [ErrorCode.NONE, 1],
    ]);
    expect(r3![0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(woken.sort()).toEqual(['a', 'a', 'b', 'nope']);
  });

  it('keeps one append in flight: requests arriving meanwhile share the next one (an engine answering later)', async () => {
    const storage = openSyncStorage('memory://');
    storage.createTopic('a', 1, {});
    const calls: number[] = [];
    const gates: (() => void)[] = [];
    const slow: Storage = {
      ...promised(storage),
      append: (parts, now) => {
        calls.push(parts.length);
        return new Promise<PartitionAppendResult[]>((resolve) => gates.push(() => resolve(storage.append(parts, now))));
      },
    };
    const q = new AppendQueue(slow, silentLogger, () => {});
    const first = q.append([part('a', '1')]);
    await new Promise<void>((r) => setImmediate(r));
    expect(calls).toEqual([1]); // in flight, not answered yet
    const later = [q.append([part('a', '2')]), q.append([part('a', '3')]), q.append([part('a', '4')])];
    for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    expect(calls).toEqual([1]); // the others wait for it
    gates.shift()!();
    expect((await first)[0]!.baseOffset).toBe(0);
    for (let i = 0; i < 3 && gates.length === 0; i++) await new Promise<void>((r) => setImmediate(r));
    expect(calls).toEqual([1, 3]); // one append for the three that came meanwhile
    gates.shift()!();
    expect((await Promise.all(later)).map((r) => r[0]!.baseOffset)).toEqual([1, 2, 3]);
    expect(q.stats).toEqual({ transactions: 2, requests: 4 });
  });

  it('answers KAFKA_STORAGE_ERROR to every request when the transaction fails', async () => {
    const storage = openSyncStorage('memory://');
    const failing: Storage = {
      ...promised(storage),
      append: async () => {
        throw new Error('disk I/O error');
      },
    };
    const q = new AppendQueue(failing, silentLogger, () => {});
    const [r] = await Promise.all([q.append([part('a', 'x')])]);
    expect(r![0]).toEqual(expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, baseOffset: -1 }));
  });

  describe('commit pacing (commitIntervalMs)', () => {
    function counted(storage: SyncStorage) {
      const calls: number[] = [];
      const spy: Storage = {
        ...promised(storage),
        append: async (parts, now) => {
          calls.push(parts.length);
          return storage.append(parts, now);
        },
      };
      return { spy, calls };
    }
    const nextTurn = () => new Promise<void>((r) => setImmediate(r));

    it('commits a request after a quiet spell at once, and makes the requests of the next interval share one commit', async () => {
      const storage = openSyncStorage('memory://');
      storage.createTopic('a', 1, {});
      const { spy, calls } = counted(storage);
      let clock = 1000;
      const q = new AppendQueue(spy, silentLogger, () => {}, { commitIntervalMs: 40, clock: () => clock });
      await q.append([part('a', 'first')]);
      expect(calls).toEqual([1]);
      clock += 1; // 1 ms after the first commit started: within the interval
      const second = q.append([part('a', 'second')]);
      const third = q.append([part('a', 'third')]);
      await nextTurn();
      await nextTurn();
      expect(calls).toEqual([1]); // waiting out the interval, not committed at the end of the turn
      const [r2, r3] = await Promise.all([second, third]);
      expect(calls).toEqual([1, 2]);
      expect(q.stats).toEqual({ transactions: 2, requests: 3 });
      expect([r2![0]!.baseOffset, r3![0]!.baseOffset]).toEqual([1, 2]);
    });

    it('stops pacing a closed loop: after 5 waits that gathered no second request, commits at once', async () => {
      const storage = openSyncStorage('memory://');
      storage.createTopic('a', 1, {});
      const { spy, calls } = counted(storage);
      const clock = 1000; // frozen: every request lands within the interval of the previous commit
      const q = new AppendQueue(spy, silentLogger, () => {}, { commitIntervalMs: 30, clock: () => clock });
      await q.append([part('a', 'first')]);
      for (let i = 0; i < 5; i++) {
        const waiting = q.append([part('a', `alone ${i}`)]);
        await nextTurn();
        await nextTurn();
        expect(calls).toHaveLength(1 + i); // held for the interval, in case others come
        await waiting;
      }
      const next = q.append([part('a', 'after five fruitless waits')]);
      await nextTurn();
      await nextTurn();
      expect(calls).toHaveLength(7); // committed at the end of its turn: pacing paused
      expect((await next)[0]!.baseOffset).toBe(6);
    });

    it('does not hold back a request once the pending bytes reach maxPendingBytes', async () => {
      const storage = openSyncStorage('memory://');
      storage.createTopic('a', 1, {});
      const { spy, calls } = counted(storage);
      const clock = 1000;
      const q = new AppendQueue(spy, silentLogger, () => {}, {
        commitIntervalMs: 60_000,
        maxPendingBytes: 200,
        clock: () => clock,
      });
      await q.append([part('a', 'first')]);
      const big = q.append([part('a', 'x'.repeat(300))]);
      await nextTurn();
      await nextTurn();
      expect(calls).toEqual([1, 1]);
      expect((await big)[0]!.errorCode).toBe(ErrorCode.NONE);
    });
  });
});
