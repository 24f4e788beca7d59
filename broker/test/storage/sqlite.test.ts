import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../../src/protocol/error-codes';
import { credentialFromPassword } from '../../src/sasl/scram-crypto';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import { MIGRATIONS } from '../../src/storage/sqlite/migrations';
import { migrate, SCHEMA_VERSION } from '../../src/storage/sqlite/schema';
import { StorageError } from '../../src/storage/storage';
import { promised, syncEngine } from '../../src/storage/sync-adapter';
import { storageContract } from './contract';
import { batch, NOW_MS, part } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'minnow-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const newPath = () => join(dir, `t${++n}.db`);

// The contract's storages start as copies of one file this file created and closed (what a new
// SqliteStorage makes of a missing file: the migrations alone): ~160 fresh files each ran the
// migrations' fsync'd commits. The 'sqlite storage' tests below still create theirs.
let migrated: string | undefined;
const copyOfMigrated = () => {
  if (!migrated) new SqliteStorage((migrated = newPath())).close();
  const path = newPath();
  copyFileSync(migrated, path);
  return path;
};

// No WAL checkpointer thread (checkpointer.ts; its own tests and every broker test run it): each
// storage started one at its first commit and its close waited for the thread to boot and exit,
// 125 ms and ~60 ms of CPU per storage, most of this file's time. The WAL is then checkpointed
// inside commits (wal_autocheckpoint), which the contract cannot tell apart.
const CONTRACT_OPTIONS = { checkpointIntervalMs: 0 };

storageContract(
  'sqlite',
  () => Promise.resolve(promised(new SqliteStorage(copyOfMigrated(), CONTRACT_OPTIONS))),
  async (s) => {
    const path = (syncEngine(s) as SqliteStorage).path;
    await s.close();
    return promised(new SqliteStorage(path, CONTRACT_OPTIONS));
  },
  {
    // ~32k committed transactions to walk every epoch took 6-9 s of CPU per test: jump to near the
    // limit, as postgres.test.ts does (memory.test.ts still walks every epoch).
    fastForwardEpoch: async (s, transactionalId, epoch) => {
      const db = (syncEngine(s) as SqliteStorage).database;
      db.prepare('UPDATE txn SET producer_epoch = ? WHERE transactional_id = ?').run(epoch, transactionalId);
      db.prepare(
        'UPDATE producer SET epoch = ? WHERE producer_id = (SELECT producer_id FROM txn WHERE transactional_id = ?)',
      ).run(epoch, transactionalId);
    },
  },
);

describe('sqlite storage', () => {
  let s: SqliteStorage;
  beforeEach(() => {
    s = new SqliteStorage(newPath());
  });
  afterEach(() => s.close());
  const db = () => s.database;

  it('uses WAL, incremental auto-vacuum, 8 KiB pages, and passes integrity_check', () => {
    s.createTopic('a', 1, {});
    s.append([part('a', 0, [batch({ valueBytes: 20000 })])], NOW_MS);
    expect(db().pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db().pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(db().pragma('page_size', { simple: true })).toBe(8192);
    expect(db().pragma('synchronous', { simple: true })).toBe(1);
    expect(db().pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db().pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db().pragma('foreign_key_check')).toEqual([]);
  });

  it('applies migrations once: reopening changes nothing', () => {
    s.createTopic('a', 1, {});
    const path = s.path;
    s.close();
    s = new SqliteStorage(path);
    s.close();
    s = new SqliteStorage(path);
    expect(db().prepare('SELECT version FROM schema_version').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrate(db(), NOW_MS)).toEqual([]);
    expect(s.listTopics().map((t) => t.name)).toEqual(['a']);
  });

  it('applies a migration a file lacks even when it has a later one (branches merge them out of order)', () => {
    const path = s.path;
    s.close();
    const raw = new Database(path);
    raw.exec('DROP TABLE acl');
    raw.prepare('DELETE FROM schema_version WHERE version = 4').run();
    raw.close();
    s = new SqliteStorage(path);
    expect(db().prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual(
      MIGRATIONS.map((m) => m.version),
    );
    expect(s.listAcls()).toEqual([]);
  });

  it('refuses a database from a newer minnow and a non-minnow database', () => {
    db()
      .prepare('INSERT INTO schema_version VALUES (?, ?, ?)')
      .run(SCHEMA_VERSION + 1, 'future', NOW_MS);
    const path = s.path;
    s.close();
    expect(() => new SqliteStorage(path)).toThrow(
      new RegExp(`schema version ${SCHEMA_VERSION + 1} is newer than this minnow's ${SCHEMA_VERSION}`),
    );
    const other = newPath();
    const raw = new Database(other);
    raw.exec('CREATE TABLE users (id INTEGER)');
    raw.close();
    expect(() => new SqliteStorage(other)).toThrow(/not a minnow one \(tables: users\)/);
    const junk = newPath();
    writeFileSync(junk, 'this is not a database, just text that is long enough to look like a header....');
    expect(() => new SqliteStorage(junk)).toThrow(StorageError);
    s = new SqliteStorage(newPath());
  });

  it('backs up while appends continue, into a file that opens with the same data', async () => {
    s.createTopic('a', 1, {});
    for (let i = 0; i < 40; i++) s.append([part('a', 0, [batch({ records: 4, valueBytes: 16000 })])], NOW_MS);
    const dest = join(dir, `backup-${n}.db`);
    let appending = true;
    let appendsDuringBackup = 0;
    const more = () => {
      if (!appending) return;
      s.append([part('a', 0, [batch({ records: 1, valueBytes: 5000 })])], NOW_MS);
      appendsDuringBackup++;
      setImmediate(more);
    };
    setImmediate(more);
    await s.backup(dest);
    appending = false;
    expect(appendsDuringBackup).toBeGreaterThan(0);
    const copy = new SqliteStorage(dest);
    try {
      expect(copy.offsets('a', 0)).toEqual(s.offsets('a', 0));
      // Buffer.equals: jest's deep equality walks megabytes byte by byte.
      expect(
        Buffer.concat(copy.read('a', 0, 0, 1e9).batches).equals(Buffer.concat(s.read('a', 0, 0, 1e9).batches)),
      ).toBe(true);
      expect(copy.database.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      copy.close();
    }
    await expect(s.backup(dest)).rejects.toThrow(/already exists/);
  });

  it('rolls the caches back with a failed transaction', () => {
    s.createTopic('a', 1, {});
    s.createTopic('b', 1, {});
    const producerId = s.initProducerId(null, NOW_MS).producerId;
    const idem = (baseSequence: number) => batch({ producerId, producerEpoch: 0, baseSequence, valueBytes: 1000 });
    s.append([part('a', 0, [batch({ valueBytes: 1000 }), idem(0)])], NOW_MS); // producer state now cached
    const size = s.read('a', 0, 0, 1).batches[0]!.length;
    const keep = { retentionMs: -1, retentionBytes: Math.floor(2.5 * size) };
    expect(s.enforceRetention(NOW_MS, keep, 10).deletedBatches).toBe(0); // loads a-0's byte count
    // Any insert into b-0 fails, after a-0's rows, producer state, offsets and bytes changed.
    const b0 = db()
      .prepare("SELECT p.id FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = 'b'")
      .pluck()
      .get();
    db().exec(
      `CREATE TEMP TRIGGER fail BEFORE INSERT ON record_batch WHEN NEW.partition_id = ${b0} BEGIN SELECT RAISE(ABORT, 'forced failure'); END`,
    );
    expect(() => s.append([part('a', 0, [idem(1)]), part('b', 0, [batch()])], NOW_MS)).toThrow(
      /SQLite failed: forced failure/,
    );
    expect(s.offsets('a', 0)).toEqual({ logStartOffset: 0, highWatermark: 2 });
    expect(s.read('a', 0, 0, 1e6).batches).toHaveLength(2);
    // The byte count did not keep the rolled-back batch (3 batches would exceed 2.5).
    expect(s.enforceRetention(NOW_MS, keep, 10).deletedBatches).toBe(0);

    db().exec('DROP TRIGGER fail');
    // Sequence 1 is new again (not a remembered duplicate) and the offset continues from 2.
    expect(s.append([part('a', 0, [idem(1)]), part('b', 0, [batch()])], NOW_MS).map((r) => r.baseOffset)).toEqual([
      2, 0,
    ]);
    expect(s.enforceRetention(NOW_MS, keep, 10).deletedBatches).toBe(1);
    const row = db()
      .prepare(
        'SELECT log_start_offset AS l, high_watermark AS h FROM partition WHERE id = (SELECT min(id) FROM partition)',
      )
      .get();
    expect(row).toEqual({ l: 1, h: 3 });
    expect(s.offsets('a', 0)).toEqual({ logStartOffset: 1, highWatermark: 3 });
  });

  it('rolls back a failed topic change without a trace in the cache', () => {
    db().exec(
      "CREATE TEMP TRIGGER fail BEFORE INSERT ON partition WHEN NEW.partition_index = 2 BEGIN SELECT RAISE(ABORT, 'forced failure'); END",
    );
    expect(() => s.createTopic('a', 3, { 'retention.ms': '1' })).toThrow(StorageError);
    expect(s.topic('a')).toBeUndefined();
    expect(s.listTopics()).toEqual([]);
    s.createTopic('b', 2, {});
    expect(() => s.createPartitions('b', 3)).toThrow(StorageError);
    expect(s.topic('b')!.partitionCount).toBe(2);
    expect(s.offsets('b', 2)).toBeUndefined();
    expect(s.totalPartitions()).toBe(2);
    db().exec("CREATE TEMP TRIGGER keep BEFORE DELETE ON topic BEGIN SELECT RAISE(ABORT, 'forced failure'); END");
    expect(() => s.deleteTopic('b')).toThrow(StorageError);
    expect(s.listTopics().map((t) => t.name)).toEqual(['b']);
    expect(s.offsets('b', 1)).toEqual({ logStartOffset: 0, highWatermark: 0 });
    expect(s.totalPartitions()).toBe(2);
    db().exec(
      "CREATE TEMP TRIGGER nocfg BEFORE INSERT ON topic_config WHEN NEW.name = 'retention.bytes' BEGIN SELECT RAISE(ABORT, 'forced failure'); END",
    );
    s.alterTopicConfigs('b', { 'retention.ms': '1' }, []);
    expect(() => s.alterTopicConfigs('b', { 'retention.bytes': '1' }, ['retention.ms'])).toThrow(StorageError);
    expect(s.topic('b')!.configs).toEqual({ 'retention.ms': '1' });
  });

  // Issue 11: a full catalog reload per created topic made a 2,000-topic CreateTopics take 8 s and
  // each auto-create 280 ms with 100k partitions. A topic change reads no table whole any more.
  it('changes topics without reloading the catalog (no whole-table reads)', () => {
    for (let i = 0; i < 20; i++) s.createTopic(`t${i}`, 2, {});
    const statement = Object.getPrototypeOf(db().prepare('SELECT 1')) as { all: () => unknown; iterate: () => unknown };
    const all = jest.spyOn(statement, 'all');
    const iterate = jest.spyOn(statement, 'iterate');
    try {
      s.createTopic('new', 3, { 'retention.ms': '5' });
      s.createPartitions('new', 5);
      s.alterTopicConfigs('new', { 'retention.bytes': '7' }, ['retention.ms']);
      expect(s.deleteTopic('t3')).toBe(true);
      expect(all).not.toHaveBeenCalled();
      expect(iterate).not.toHaveBeenCalled();
    } finally {
      all.mockRestore();
      iterate.mockRestore();
    }
    expect(s.topic('new')).toMatchObject({ partitionCount: 5, configs: { 'retention.bytes': '7' } });
    expect(s.totalPartitions()).toBe(19 * 2 + 5);
  });

  it('gives space back to the file system after retention (incremental vacuum)', () => {
    s.createTopic('a', 1, {});
    for (let i = 0; i < 50; i++)
      s.append([part('a', 0, [batch({ records: 8, valueBytes: 8000, timestampMs: 1000 })])], NOW_MS);
    db().pragma('wal_checkpoint(TRUNCATE)');
    const before = statSync(s.path).size;
    const r = s.enforceRetention(NOW_MS, { retentionMs: 1000, retentionBytes: -1 }, 1000);
    expect(r.deletedBatches).toBe(50);
    expect(db().pragma('freelist_count', { simple: true })).toBe(0);
    db().pragma('wal_checkpoint(TRUNCATE)');
    expect(statSync(s.path).size).toBeLessThan(before / 10);
    expect(s.read('a', 0, 400, 1e6)).toMatchObject({ errorCode: ErrorCode.NONE, logStartOffset: 400, batches: [] });
  });

  it('gives space back to the file system after compaction (incremental vacuum)', async () => {
    s.createTopic('a', 1, { 'cleanup.policy': 'compact' });
    // Every batch holds keys k0..k7: compaction keeps the last two batches (the newest values and the head).
    for (let i = 0; i < 50; i++) s.append([part('a', 0, [batch({ records: 8, valueBytes: 8000 })])], NOW_MS);
    db().pragma('wal_checkpoint(TRUNCATE)');
    const before = statSync(s.path).size;
    let passes = 0;
    for (let i = 0; i < 1000; i++) {
      const r = await s.compactStep(NOW_MS);
      if (r.passDone) passes++;
      if (!r.working) break;
    }
    expect(passes).toBe(1);
    expect(s.read('a', 0, 0, 1e9).batches).toHaveLength(2);
    expect(db().pragma('freelist_count', { simple: true })).toBe(0);
    db().pragma('wal_checkpoint(TRUNCATE)');
    expect(statSync(s.path).size).toBeLessThan(before / 5); // 2 of 50 batches left, plus the schema's pages
    expect(db().prepare('SELECT clean_offset FROM log_cleaner').pluck().get()).toBe(49 * 8);
  });

  it('stores a SCRAM credential without its password anywhere in the file', async () => {
    const password = 'a-very-distinct-password';
    const c = await credentialFromPassword('SCRAM-SHA-512', password, 4096);
    s.alterScramCredentials([{ user: 'alice', mechanism: 'SCRAM-SHA-512', ...c }], []);
    const path = s.path;
    s.close();
    expect(readFileSync(path).includes(password)).toBe(false);
    s = new SqliteStorage(path);
    expect(s.scramCredential('alice', 'SCRAM-SHA-512')).toEqual(c);
  });

  it('checkpoints the WAL on close, so the .db file alone holds everything', () => {
    s.createTopic('a', 1, {});
    s.append([part('a', 0, [batch({ valueBytes: 50000 })])], NOW_MS);
    const path = s.path;
    s.close();
    expect(!existsSync(`${path}-wal`) || statSync(`${path}-wal`).size === 0).toBe(true);
    s.close(); // twice is fine
    s = new SqliteStorage(path);
    expect(s.offsets('a', 0)!.highWatermark).toBe(1);
  });
});
