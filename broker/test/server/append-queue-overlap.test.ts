// The append queue with a network engine: the next append starts once the one in flight holds its
// partition locks (storage's onLocked), never more than two at a time, and an engine that never
// reports its locks (SQLite, memory) keeps one append at a time.
import { AppendQueue } from '../../src/server/append-queue';
import { silentLogger } from '../../src/logger';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import { openSyncStorage } from '../../src/storage/open-storage';
import type { PartitionAppend, PartitionAppendResult, Storage } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';

const part = (value: string): PartitionAppend => {
  const data = encodeRecordBatch({ records: [{ value: Buffer.from(value) }] });
  return { topic: 'a', partition: 0, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false };
};

const turn = () => new Promise<void>((r) => setImmediate(r));

/** An engine whose appends wait for the test: lock() reports the locks, commit() answers. */
function steppedEngine(reportsLocks: boolean) {
  const storage = openSyncStorage('memory://');
  storage.createTopic('a', 1, {});
  const appends: { values: string[]; lock: () => void; commit: () => void }[] = [];
  const engine: Storage = {
    ...promised(storage),
    append: (parts, now, onLocked) =>
      new Promise<PartitionAppendResult[]>((resolve) => {
        appends.push({
          values: parts.map((p) => p.batches[0]!.data.subarray(-2, -1).toString()),
          lock: () => (reportsLocks ? onLocked?.() : undefined),
          commit: () => resolve(storage.append(parts, now)),
        });
      }),
  };
  return { engine, appends };
}

describe('AppendQueue with an engine that reports its locks', () => {
  it('starts the next append once the one in flight holds its locks, and no third before one ends', async () => {
    const { engine, appends } = steppedEngine(true);
    const q = new AppendQueue(engine, silentLogger, () => {});
    const first = q.append([part('1')]);
    await turn();
    const second = q.append([part('2')]);
    await turn();
    expect(appends.map((a) => a.values)).toEqual([['1']]); // the first has not locked yet
    appends[0]!.lock();
    await turn();
    expect(appends.map((a) => a.values)).toEqual([['1'], ['2']]);
    const third = q.append([part('3')]);
    const fourth = q.append([part('4')]);
    appends[1]!.lock();
    await turn();
    expect(appends).toHaveLength(2); // two in flight: the third waits for one to end
    appends[0]!.commit();
    await first;
    await turn();
    // The second holds its locks: the next one (both waiting requests, one transaction) starts.
    expect(appends.map((a) => a.values)).toEqual([['1'], ['2'], ['3', '4']]);
    appends[1]!.commit();
    appends[2]!.commit();
    const results = await Promise.all([first, second, third, fourth]);
    expect(results.map((r) => [r[0]!.errorCode, r[0]!.baseOffset])).toEqual([
      [ErrorCode.NONE, 0],
      [ErrorCode.NONE, 1],
      [ErrorCode.NONE, 2],
      [ErrorCode.NONE, 3],
    ]);
    expect(q.stats).toEqual({ transactions: 3, requests: 4 });
  });

  it('a late lock report of an append that already ended starts nothing', async () => {
    const { engine, appends } = steppedEngine(true);
    const q = new AppendQueue(engine, silentLogger, () => {});
    const first = q.append([part('1')]);
    await turn();
    appends[0]!.lock();
    const second = q.append([part('2')]);
    await turn();
    appends[0]!.commit();
    await first;
    const third = q.append([part('3')]);
    await turn();
    appends[0]!.lock(); // reported again, late: the second has not locked
    await turn();
    expect(appends).toHaveLength(2);
    appends[1]!.commit();
    await second;
    await turn();
    expect(appends).toHaveLength(3);
    appends[2]!.commit();
    await third;
  });
});

describe('AppendQueue with an engine that does not report its locks', () => {
  it('keeps one append in flight until it ends', async () => {
    const { engine, appends } = steppedEngine(false);
    const q = new AppendQueue(engine, silentLogger, () => {});
    const first = q.append([part('1')]);
    await turn();
    const second = q.append([part('2')]);
    appends[0]!.lock();
    await turn();
    expect(appends).toHaveLength(1);
    appends[0]!.commit();
    await first;
    await turn();
    expect(appends).toHaveLength(2);
    appends[1]!.commit();
    await second;
  });
});
