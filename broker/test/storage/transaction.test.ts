// The Transactor's commit hook (the checkpointer's wake-up) runs once per outermost commit, never
// for a rollback, and after the rollback path: a failing hook cannot undo committed caches.
import Database from 'better-sqlite3';
import { Transactor } from '../../src/storage/sqlite/transaction';

describe('Transactor commit hook', () => {
  const setup = (onCommit: () => void) => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    return { db, tx: new Transactor(db, onCommit) };
  };

  it('runs once per outermost commit, not for nested transactions or rollbacks', () => {
    let commits = 0;
    const { db, tx } = setup(() => commits++);
    tx.run(() => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      tx.run(() => db.prepare('INSERT INTO t VALUES (2)').run());
    });
    expect(commits).toBe(1);
    expect(() =>
      tx.run(() => {
        db.prepare('INSERT INTO t VALUES (3)').run();
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(commits).toBe(1);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
  });

  it('a hook that throws does not roll back the caches of a committed transaction', () => {
    const { db, tx } = setup(() => {
      throw new Error('hook failed');
    });
    const cache = { value: 'before' };
    expect(() =>
      tx.run(() => {
        db.prepare('INSERT INTO t VALUES (1)').run();
        tx.onRollback(() => (cache.value = 'before'));
        cache.value = 'after';
      }),
    ).toThrow('hook failed');
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    expect(cache.value).toBe('after');
  });
});
