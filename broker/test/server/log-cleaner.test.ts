// The compactor's scheduler: it runs storage steps every backoff until nothing needs cleaning,
// logs each pass, and stop() waits for a run in progress before the storage may close.
import { promised } from '../../src/storage/sync-adapter';
import { createLogger } from '../../src/logger';
import { encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import { LogCleanerTask } from '../../src/server/log-cleaner';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';

function keyed(key: string, value: string) {
  const data = encodeRecordBatch({ records: [{ key: Buffer.from(key), value: Buffer.from(value) }] });
  return { header: readBatchHeader(data), data };
}

describe('LogCleanerTask', () => {
  it('compacts every backoff until idle, and stops', async () => {
    const storage = new MemoryStorage();
    await storage.createTopic('t', 1, { 'cleanup.policy': 'compact' });
    for (let i = 0; i < 20; i++)
      await storage.append(
        [{ topic: 't', partition: 0, batches: [keyed('a', `${i}`)], logAppendTime: false }],
        Date.now(),
      );
    await storage.append(
      [{ topic: 't', partition: 0, batches: [keyed('z', 'head')], logAppendTime: false }],
      Date.now(),
    );
    const lines: string[] = [];
    const freed = jest.fn();
    const task = new LogCleanerTask(promised(storage), {
      backoffMs: 10,
      dedupeBytes: 1 << 20,
      brokerDefaults: () => ({}),
      now: () => Date.now(),
      logger: createLogger('info', (l) => lines.push(l)),
      onFreed: freed,
    });
    task.start();
    for (let i = 0; i < 200 && (await storage.cleanerState('t', 0, Date.now()))!.lastCleanedMs < 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    await task.stop();
    expect((await storage.read('t', 0, 0, 1e6)).batches).toHaveLength(2);
    expect(lines.some((l) => l.includes('compacted partition'))).toBe(true);
    expect(freed).toHaveBeenCalled();
  });

  it('logs a failing step and tries again at the next run', async () => {
    const storage = new MemoryStorage();
    let calls = 0;
    storage.compactStep = async () => {
      calls++;
      throw new Error('boom');
    };
    const lines: string[] = [];
    const task = new LogCleanerTask(promised(storage), {
      backoffMs: 10,
      dedupeBytes: 1 << 20,
      brokerDefaults: () => ({}),
      now: () => Date.now(),
      logger: createLogger('info', (l) => lines.push(l)),
    });
    task.start();
    for (let i = 0; i < 200 && calls < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await task.stop();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.includes('compaction step failed'))).toBe(true);
  });
});
