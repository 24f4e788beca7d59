// SQLite specifics of transactions: each step is one SQLite transaction (a failure leaves the old
// state in the file and in the caches), and the tables keep no rows for what is gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../../src/protocol/error-codes';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import { StorageError } from '../../src/storage/storage';
import type { TransactionInfo } from '../../src/storage/storage';
import { batch, NOW_MS, part } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'minnow-sqlite-txn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const txBatch = (info: TransactionInfo, baseSequence: number) =>
  batch({ producerId: info.producerId, producerEpoch: info.producerEpoch, baseSequence, transactional: true });

describe('sqlite transactions', () => {
  let s: SqliteStorage;
  beforeEach(() => {
    s = new SqliteStorage(join(dir, `t${++n}.db`));
  });
  afterEach(() => s.close());
  const count = (table: string) => s.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  const begin = (groups: string[] = []) => {
    s.createTopic('t', 2, {});
    s.initTransaction('tx', 60000, NOW_MS);
    return s.addToTransaction(
      'tx',
      [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ],
      groups,
      NOW_MS,
    );
  };

  it('a failed endTransaction (a full disk at its last write) leaves the transaction as it was', () => {
    const info = begin(['g']);
    s.append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
    s.commitTransactionalOffsets(
      'tx',
      'g',
      [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }],
      NOW_MS,
    );
    const before = s.transaction('tx');
    s.database.exec(
      "CREATE TEMP TRIGGER full BEFORE UPDATE ON txn BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    expect(() => s.endTransaction('tx', true, NOW_MS + 1)).toThrow(StorageError);
    expect(s.transaction('tx')).toEqual(before);
    expect(s.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 1 });
    expect(s.offsets('t', 1)).toEqual({ logStartOffset: 0, highWatermark: 0 });
    expect(s.lastStableOffset('t', 0)).toBe(0);
    expect(s.fetchOffsets('g')).toEqual([]);
    expect(count('record_batch')).toBe(1);
    expect(count('open_txn')).toBe(1);
    s.database.exec('DROP TRIGGER full');
    expect(s.endTransaction('tx', true, NOW_MS + 1).markedPartitions).toHaveLength(2);
    expect(s.lastStableOffset('t', 0)).toBe(2);
    expect(s.fetchOffsets('g').map((o) => o.offset)).toEqual([1]);
    expect(count('open_txn')).toBe(0);
  });

  it('a really full file (SQLITE_FULL) refuses endTransaction as diskFull, and leaves everything as it was', () => {
    s.createTopic('wide', 300, {});
    const partitions = Array.from({ length: 300 }, (_, partition) => ({ topic: 'wide', partition }));
    s.initTransaction('tx', 60000, NOW_MS);
    const info = s.addToTransaction('tx', partitions, [], NOW_MS);
    const before = s.transaction('tx');
    // The file may not grow by a page: 300 markers do not fit in its free space.
    const pages = s.database.pragma('page_count', { simple: true }) as number;
    s.database.pragma(`max_page_count = ${pages}`);
    let err: unknown;
    try {
      s.endTransaction('tx', false, NOW_MS);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).diskFull).toBe(true);
    expect(s.transaction('tx')).toEqual(before);
    expect(s.offsets('wide', 299)!.highWatermark).toBe(0);
    s.database.pragma('max_page_count = 1073741823');
    expect(s.endTransaction('tx', false, NOW_MS).markedPartitions).toHaveLength(300);
    expect(s.offsets('wide', 299)!.highWatermark).toBe(1);
    expect(info.partitions).toHaveLength(300);
  });

  it('a failed initTransaction during a transaction leaves it ongoing, its markers unwritten', () => {
    const info = begin();
    s.append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
    s.database.exec(
      "CREATE TEMP TRIGGER full BEFORE UPDATE ON producer BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    expect(() => s.initTransaction('tx', 60000, NOW_MS)).toThrow(StorageError);
    expect(s.transaction('tx')).toMatchObject({ state: 'Ongoing', producerEpoch: 0 });
    expect(s.offsets('t', 0)!.highWatermark).toBe(1);
    expect(s.lastStableOffset('t', 0)).toBe(0);
    expect(count('aborted_txn')).toBe(0);
  });

  it('a failed append opens no transaction in the cache', () => {
    const info = begin();
    s.database.exec("CREATE TEMP TRIGGER nope BEFORE INSERT ON open_txn BEGIN SELECT RAISE(ABORT, 'forced'); END");
    expect(() => s.append([part('t', 0, [txBatch(info, 0)])], NOW_MS)).toThrow(StorageError);
    expect(s.lastStableOffset('t', 0)).toBe(0);
    expect(s.offsets('t', 0)!.highWatermark).toBe(0);
    s.database.exec('DROP TRIGGER nope');
    expect(s.append([part('t', 0, [txBatch(info, 0)])], NOW_MS)[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(s.lastStableOffset('t', 0)).toBe(0);
    expect(s.offsets('t', 0)!.highWatermark).toBe(1);
  });

  it('groups several produce requests in one append: each partition checked, one transaction', () => {
    const info = begin();
    s.initTransaction('other', 60000, NOW_MS);
    const other = s.transaction('other')!;
    const r = s.append(
      [
        part('t', 0, [txBatch(info, 0)]),
        part('t', 1, [batch()]),
        part('t', 0, [txBatch(other, 0)]), // not in a transaction: refused alone
        part('t', 0, [txBatch(info, 1)]),
      ],
      NOW_MS,
    );
    expect(r.map((x) => [x.errorCode, x.baseOffset])).toEqual([
      [0, 0],
      [0, 0],
      [ErrorCode.INVALID_TXN_STATE, -1],
      [0, 1],
    ]);
    expect(s.database.prepare('SELECT first_offset FROM open_txn').pluck().all()).toEqual([0]);
  });

  it('drops aborted rows below the log start, and every row of a deleted topic', () => {
    const info = begin(['g']);
    s.append([part('t', 0, [txBatch(info, 0)])], NOW_MS);
    s.endTransaction('tx', false, NOW_MS); // t-0: 0 data, 1 marker; t-1: 0 marker
    s.append([part('t', 0, [batch()])], NOW_MS);
    expect(count('aborted_txn')).toBe(1);
    s.deleteRecords('t', 0, 1);
    expect(count('aborted_txn')).toBe(1); // its marker (1) is still there
    s.deleteRecords('t', 0, 2);
    expect(count('aborted_txn')).toBe(0);

    s.addToTransaction('tx', [{ topic: 't', partition: 1 }], ['g'], NOW_MS);
    s.append([part('t', 1, [txBatch(info, 0)])], NOW_MS);
    s.commitTransactionalOffsets(
      'tx',
      'g',
      [{ topic: 't', partition: 1, offset: 1, leaderEpoch: 0, metadata: null }],
      NOW_MS,
    );
    expect([count('open_txn'), count('txn_partition'), count('txn_offset')]).toEqual([1, 1, 1]);
    s.deleteTopic('t');
    expect([count('open_txn'), count('txn_partition'), count('txn_offset'), count('aborted_txn')]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(s.database.pragma('foreign_key_check')).toEqual([]);
    expect(count('txn_group')).toBe(1); // the group stays in the transaction
  });

  it('forgets a deleted transactional id: rows gone, its producer id released', () => {
    begin(['g']);
    s.endTransaction('tx', true, NOW_MS);
    expect(s.deleteTransaction('tx')).toBe(true);
    expect([count('txn'), count('txn_partition'), count('txn_group'), count('txn_offset')]).toEqual([0, 0, 0, 0]);
    expect(s.database.prepare('SELECT count(*) FROM producer WHERE transactional_id IS NOT NULL').pluck().get()).toBe(
      0,
    );
  });
});
