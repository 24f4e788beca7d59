// maybe.ts: one generator of engine calls, driven synchronously (memory, SQLite) or with awaits
// (PostgreSQL); a Promise where a synchronous answer is needed is a programming error, said so.
import { runAsync, runSync } from '../../../src/storage/compaction/maybe';
import type { Steps } from '../../../src/storage/compaction/maybe';

function* sum(a: () => unknown, b: () => unknown): Steps<number> {
  const x = (yield a()) as number;
  const y = (yield b()) as number;
  return x + y;
}

describe('maybe', () => {
  it('runs the same steps over plain answers and over Promises', async () => {
    expect(
      runSync(
        sum(
          () => 1,
          () => 2,
        ),
      ),
    ).toBe(3);
    expect(
      await runAsync(
        sum(
          () => Promise.resolve(1),
          () => 2,
        ),
      ),
    ).toBe(3);
  });

  it('refuses a Promise in a synchronous run', () => {
    expect(() =>
      runSync(
        sum(
          () => 1,
          () => new Promise(() => {}),
        ),
      ),
    ).toThrow(/asynchronous engine answer/);
  });

  it('passes a rejected answer on', async () => {
    await expect(
      runAsync(
        sum(
          () => Promise.reject(new Error('gone')),
          () => 2,
        ),
      ),
    ).rejects.toThrow('gone');
  });
});
