// The Transactor's commit hook (the checkpointer's wake-up) runs once per outermost commit, never
// for a rollback, and after the rollback path: a failing hook cannot undo committed caches. A
// nested call (a savepoint) that fails undoes its own cache changes, so its caller may go on.
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

  it('a nested call that fails undoes its own cache changes; the outer call commits the rest', () => {
    const { db, tx } = setup(() => {});
    const cache: number[] = [];
    const insert = (x: number, fail = false) =>
      tx.run(() => {
        db.prepare('INSERT INTO t VALUES (?)').run(x);
        cache.push(x);
        tx.onRollback(() => cache.splice(cache.indexOf(x), 1));
        if (fail) throw new Error(`no ${x}`);
      });
    tx.run(() => {
      insert(1);
      expect(() => insert(2, true)).toThrow('no 2');
      insert(3);
    });
    expect(cache).toEqual([1, 3]);
    expect(db.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 3]);
    // The outer call failing afterwards undoes what is left, once.
    expect(() =>
      tx.run(() => {
        insert(4);
        expect(() => insert(5, true)).toThrow('no 5');
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(cache).toEqual([1, 3]);
    expect(db.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 3]);
  });
});
