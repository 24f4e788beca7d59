// The SQLite engine's tail cache (src/storage/tail-cache.ts) never answers what the database would
// not: the same operations on a storage with the cache and on one without it, then every read
// (each offset, both isolation levels, whole and one-batch limits, with and without KIP-74's first
// batch) compared. Each case changes the stored batches in a way other than an append: retention,
// DeleteRecords, compaction, a rolled back append, an aborted transaction, a deleted and recreated
// topic, and eviction under a small budget.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import { batch, NOW_MS, part, resend } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'minnow-tail-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const open = (tailCacheBytes: number) => new SqliteStorage(join(dir, `t${++n}.db`), { tailCacheBytes });

/** A cached and an uncached storage driven alike. */
function pair(budget = 1 << 20) {
  const both = [open(budget), open(0)] as const;
  return {
    cached: both[0],
    do<T>(op: (s: SqliteStorage) => T): T {
      const r = op(both[1]);
      op(both[0]);
      return r;
    },
    /** Every read the cached storage answers equals the uncached one's. */
    expectSameReads(topic: string, partition: number): void {
      const o = both[1].offsets(topic, partition);
      expect(both[0].offsets(topic, partition)).toEqual(o);
      if (!o) return;
      for (let at = Math.max(0, o.logStartOffset - 1); at <= o.highWatermark; at++)
        for (const committed of [false, true])
          for (const maxBytes of [1, 1 << 20])
            for (const minOneBatch of [true, false]) {
              const args = [topic, partition, at, maxBytes, minOneBatch, committed] as const;
              expect({ at, committed, maxBytes, minOneBatch, ...both[0].read(...args) }).toEqual({
                at,
                committed,
                maxBytes,
                minOneBatch,
                ...both[1].read(...args),
              });
            }
    },
    close: () => both.forEach((s) => s.close()),
  };
}

describe('sqlite tail cache', () => {
  it('serves reads at the tail from memory (the cache is in use here)', () => {
    const p = pair();
    p.do((s) => s.createTopic('t', 1, {}));
    p.do((s) => s.append([part('t', 0, [batch(), batch(), batch()])], NOW_MS));
    expect(p.cached.read('t', 0, 1, 1 << 20).batches).toHaveLength(2);
    p.cached.database.exec('DELETE FROM record_batch'); // behind the engine's back: only the cache has them now
    expect(p.cached.read('t', 0, 1, 1 << 20).batches).toHaveLength(2);
    p.close();
  });

  it('retention and DeleteRecords: the deleted batches are not read from the cache', () => {
    const p = pair();
    p.do((s) => s.createTopic('t', 1, {}));
    for (let i = 0; i < 6; i++) p.do((s) => s.append([part('t', 0, [batch({ records: 2, valueBytes: 500 })])], NOW_MS));
    p.expectSameReads('t', 0);
    p.do((s) => s.deleteRecords('t', 0, 3)); // the batch [2-3] holds 3: it stays
    p.expectSameReads('t', 0);
    const size = p.cached.read('t', 0, 4, 1).batches[0]!.length;
    p.do((s) => s.enforceRetention(NOW_MS, { retentionMs: -1, retentionBytes: 2 * size }, 100));
    p.expectSameReads('t', 0);
    p.do((s) => s.append([part('t', 0, [batch()])], NOW_MS));
    p.expectSameReads('t', 0);
    p.close();
  });

  it('compaction: rewritten and removed batches are read as the cleaner left them', async () => {
    const p = pair();
    p.do((s) => s.createTopic('c', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01' }));
    // The same keys (k0, k1) again and again: every batch but the last is cleaned away.
    for (let i = 0; i < 8; i++)
      p.do((s) => s.append([part('c', 0, [batch({ records: 2, valueBytes: 100 + i })])], NOW_MS));
    p.expectSameReads('c', 0);
    const removedBefore = p.cached.database.prepare('SELECT count(*) FROM record_batch').pluck().get() as number;
    for (let step = 0; step < 50; step++) {
      const [a, b] = [await p.cached.compactStep(NOW_MS + 1), await p.do((s) => s.compactStep(NOW_MS + 1))];
      if (!a.working && !b.working) break;
    }
    const left = p.cached.database.prepare('SELECT count(*) FROM record_batch').pluck().get() as number;
    expect(left).toBeLessThan(removedBefore); // the cleaner did remove batches
    p.expectSameReads('c', 0);
    p.close();
  });

  it('a rolled back append leaves no batch in the cache', () => {
    const p = pair();
    p.do((s) => {
      s.createTopic('a', 1, {});
      s.createTopic('b', 1, {});
      s.append([part('a', 0, [batch(), batch()])], NOW_MS);
    });
    p.do((s) => {
      const b0 = s.database
        .prepare("SELECT p.id FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = 'b'")
        .pluck()
        .get();
      s.database.exec(
        `CREATE TEMP TRIGGER fail BEFORE INSERT ON record_batch WHEN NEW.partition_id = ${b0} BEGIN SELECT RAISE(ABORT, 'forced failure'); END`,
      );
      expect(() => s.append([part('a', 0, [batch()]), part('b', 0, [batch()])], NOW_MS)).toThrow(/forced failure/);
    });
    expect(p.cached.read('a', 0, 0, 1 << 20).batches).toHaveLength(2);
    p.expectSameReads('a', 0);
    p.do((s) => s.database.exec('DROP TRIGGER fail'));
    p.do((s) => s.append([part('a', 0, [batch({ valueBytes: 77 })])], NOW_MS));
    p.expectSameReads('a', 0);
    p.close();
  });

  it('transactions: read_committed stops at the LSO and gets the aborted ranges from cached reads', () => {
    const p = pair();
    p.do((s) => s.createTopic('t', 1, {}));
    const begin = (id: string) =>
      p.do((s) => {
        s.initTransaction(id, 60000, NOW_MS);
        return s.addToTransaction(id, [{ topic: 't', partition: 0 }], [], NOW_MS + 1);
      });
    const tx = (info: { producerId: number; producerEpoch: number }, seq: number) =>
      batch({ producerId: info.producerId, producerEpoch: info.producerEpoch, baseSequence: seq, transactional: true });
    const a = begin('a');
    const b = begin('b');
    p.do((s) => s.append([part('t', 0, [batch()])], NOW_MS));
    p.do((s) => s.append([part('t', 0, [tx(a, 0)])], NOW_MS));
    p.do((s) => s.append([part('t', 0, [tx(b, 0)])], NOW_MS));
    p.expectSameReads('t', 0); // LSO at a's first batch
    p.do((s) => s.endTransaction('b', false, NOW_MS)); // an aborted range and a marker
    p.expectSameReads('t', 0);
    p.do((s) => s.endTransaction('a', true, NOW_MS));
    p.do((s) => s.append([part('t', 0, [batch()])], NOW_MS));
    p.expectSameReads('t', 0);
    p.close();
  });

  it('a deleted topic created again under its name reads its new batches only', () => {
    const p = pair();
    p.do((s) => s.createTopic('t', 2, {}));
    p.do((s) => s.append([part('t', 0, [batch(), batch()]), part('t', 1, [batch()])], NOW_MS));
    p.do((s) => s.deleteTopic('t'));
    p.do((s) => s.createTopic('t', 2, {}));
    p.do((s) => s.append([part('t', 0, [batch({ valueBytes: 99 })])], NOW_MS));
    p.expectSameReads('t', 0);
    p.expectSameReads('t', 1);
    p.close();
  });

  it('a budget smaller than the partitions write: evicted batches come from the database', () => {
    const p = pair(3000);
    p.do((s) => s.createTopic('t', 3, {}));
    for (let i = 0; i < 12; i++)
      p.do((s) =>
        s.append(
          [part('t', i % 3, [batch({ valueBytes: 300 + i })]), part('t', (i + 1) % 3, [resend(batch())])],
          NOW_MS,
        ),
      );
    for (const partition of [0, 1, 2]) p.expectSameReads('t', partition);
    p.close();
  });
});
