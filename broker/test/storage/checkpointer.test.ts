// The WAL is checkpointed by a worker thread, not inside commits: data reaches the main database
// file while the writer's own autocheckpoint is off, and close() still leaves a complete .db.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { Checkpointer } from '../../src/storage/sqlite/checkpointer';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import { batch, part, NOW_MS } from './fixtures';

const MiB = 1024 * 1024;

/**
 * Polls `done` every 20 ms, at most `maxMs` (generous: a worker thread can take seconds to start on a
 * loaded 2-core CI machine); the assertions after it say what was expected.
 */
async function waitUntil(done: () => boolean, maxMs = 20_000): Promise<void> {
  for (let waited = 0; waited < maxMs && !done(); waited += 20) await new Promise((r) => setTimeout(r, 20));
}

describe('WAL checkpointer thread', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-ckpt-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fill = (s: SqliteStorage) => {
    s.createTopic('t', 1, {});
    for (let i = 0; i < 40; i++) s.append([part('t', 0, [batch({ valueBytes: 64 * 1024 })])], NOW_MS);
  };

  it('moves committed pages into the database file in the background', async () => {
    const file = path.join(dir, 'bg.db');
    const s = new SqliteStorage(file, { checkpointIntervalMs: 20 });
    try {
      expect(s.database.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      fill(s);
      await waitUntil(() => fs.statSync(file).size >= 2 * MiB);
      expect(fs.statSync(file).size).toBeGreaterThan(2 * MiB);
    } finally {
      s.close();
    }
    const reopened = new SqliteStorage(file, { checkpointIntervalMs: 0 });
    expect(reopened.offsets('t', 0)!.highWatermark).toBeGreaterThan(0);
    reopened.close();
  });

  it('without the thread nothing is checkpointed until close', async () => {
    const file = path.join(dir, 'off.db');
    const s = new SqliteStorage(file, { checkpointIntervalMs: 0, walAutocheckpointPages: 0 });
    fill(s);
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.statSync(file).size).toBeLessThan(MiB);
    s.close();
    expect(fs.statSync(file).size).toBeGreaterThan(2 * MiB);
  });

  it('runs only while there are commits: the first write starts the thread, idleness retires it after a last checkpoint', async () => {
    const file = path.join(dir, 'lazy.db');
    const s = new SqliteStorage(file, { checkpointIntervalMs: 60_000, checkpointerIdleStopMs: 50 });
    try {
      const thread = s.checkpointer!;
      expect(thread.running).toBe(false); // opening and migrating start nothing
      fill(s);
      expect(thread.running).toBe(true);
      expect(thread.started).toBe(1);
      // Its own timer (60 s) never fires here: only the retiring checkpoint can fill the file.
      await waitUntil(() => !thread.running && fs.statSync(file).size >= 2 * MiB);
      expect(thread.running).toBe(false);
      expect(fs.statSync(file).size).toBeGreaterThan(2 * MiB);
      s.append([part('t', 0, [batch({ valueBytes: 10 })])], NOW_MS);
      expect(thread.running).toBe(true);
      expect(thread.started).toBe(2);
    } finally {
      s.close();
    }
    const reopened = new SqliteStorage(file, { checkpointIntervalMs: 0 });
    expect(reopened.offsets('t', 0)!.highWatermark).toBe(41);
    reopened.close();
  });

  it('past walMaxBytes of WAL, has the writer catch up so the WAL starts over instead of growing', async () => {
    const file = path.join(dir, 'bounded.db');
    const s = new SqliteStorage(file, { checkpointIntervalMs: 10, walMaxBytes: MiB });
    const walSize = () => fs.statSync(`${file}-wal`).size;
    let appended = 0;
    let afterFirstCatchUp = 0;
    let sizeAtFirstCatchUp = 0;
    let peakAfter = 0;
    try {
      s.createTopic('t', 1, {});
      // Commits of 64 KiB with no pause longer than an event-loop turn (the thread's messages
      // arrive between two commits). The thread takes a moment to start, so the WAL first grows
      // past the bound; once the first catch-up ran, another 8 MiB (eight bounds) must not grow it.
      while (afterFirstCatchUp < 128 && appended < 600) {
        s.append([part('t', 0, [batch({ valueBytes: 64 * 1024 })])], NOW_MS);
        appended++;
        if (s.checkpointer!.catchUps > 0) {
          if (afterFirstCatchUp++ === 0) sizeAtFirstCatchUp = walSize();
          peakAfter = Math.max(peakAfter, walSize());
        }
        await new Promise((r) => setImmediate(r));
      }
      expect(afterFirstCatchUp).toBe(128);
      expect(s.checkpointer!.catchUps).toBeGreaterThan(1);
      // Slack: what is committed between the thread's pass and the catch-up, generous for CI.
      expect(peakAfter).toBeLessThan(Math.max(sizeAtFirstCatchUp, MiB) + 2 * MiB);
    } finally {
      s.close();
    }
    const reopened = new SqliteStorage(file, { checkpointIntervalMs: 0 });
    expect(reopened.offsets('t', 0)!.highWatermark).toBe(appended);
    reopened.close();
  });

  it('falls back to checkpoints inside commits, once, when its thread dies', async () => {
    const errors: string[] = [];
    let fallbacks = 0;
    // The thread cannot open a database in a folder that does not exist: it dies on start.
    const c = new Checkpointer(
      path.join(dir, 'missing', 'x.db'),
      20,
      (m) => errors.push(m),
      60_000,
      () => fallbacks++,
    );
    try {
      c.committed();
      expect(c.started).toBe(1);
      await waitUntil(() => fallbacks > 0);
      expect(fallbacks).toBe(1);
      expect(errors.join('\n')).toMatch(/checkpointer thread died: .*checkpointing inside commits from now on/);
      c.committed(); // no thread again
      expect(c.started).toBe(1);
      expect(c.running).toBe(false);
      expect(fallbacks).toBe(1);
    } finally {
      c.stop();
    }
  });

  it('a storage whose thread died turns wal_autocheckpoint back on', async () => {
    const file = path.join(dir, 'fallback.db');
    const s = new SqliteStorage(file, { checkpointIntervalMs: 20, walAutocheckpointPages: 123 });
    try {
      expect(s.database.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      (s.checkpointer as unknown as { fail(m: string): void }).fail('simulated');
      expect(s.database.pragma('wal_autocheckpoint', { simple: true })).toBe(123);
    } finally {
      s.close();
    }
  });
});
