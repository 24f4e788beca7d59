import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { openSyncStorage } from '../../src/storage/open-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import { postgresPoolConfig } from '../../src/storage/postgres/url';
import { parseStorageUrl, storageUrlFrom } from '../../src/storage/storage-url';

describe('parseStorageUrl', () => {
  it.each([
    ['memory://', { kind: 'memory', url: 'memory://' }],
    ['memory:', { kind: 'memory', url: 'memory:' }],
    ['sqlite://data/minnow.db', { kind: 'sqlite', url: 'sqlite://data/minnow.db', path: 'data/minnow.db' }],
    ['sqlite:///var/lib/minnow.db', { kind: 'sqlite', url: 'sqlite:///var/lib/minnow.db', path: '/var/lib/minnow.db' }],
    ['sqlite:minnow.db', { kind: 'sqlite', url: 'sqlite:minnow.db', path: 'minnow.db' }],
    ['sqlite:./data/broker.db', { kind: 'sqlite', url: 'sqlite:./data/broker.db', path: './data/broker.db' }],
    [
      'sqlite://x.db?synchronous=full',
      { kind: 'sqlite', url: 'sqlite://x.db?synchronous=full', path: 'x.db', synchronous: 'full' },
    ],
  ])('%s', (url, expected) => {
    expect(parseStorageUrl(url)).toEqual(expected);
  });
  it('postgres://: the password only in connectionString, which logs and JSON never show', () => {
    const target = parseStorageUrl('postgres://minnow:s3cret@db.example:5432/minnow');
    expect(target).toEqual({ kind: 'postgres', url: 'postgres://minnow:***@db.example:5432/minnow' });
    expect(target.kind === 'postgres' && target.connectionString).toBe(
      'postgres://minnow:s3cret@db.example:5432/minnow',
    );
    expect(JSON.stringify(target)).not.toContain('s3cret');
    expect(parseStorageUrl('postgresql://minnow@db/m')).toEqual({ kind: 'postgres', url: 'postgresql://minnow@db/m' });
    expect(postgresPoolConfig('postgres://u:p@db/m?pool_max=3&statement_timeout_ms=500&sslmode=require')).toEqual({
      config: { connectionString: 'postgres://u:p@db/m?sslmode=require' },
      redacted: 'postgres://u:***@db/m?pool_max=3&statement_timeout_ms=500&sslmode=require',
      options: { max: 3, statementTimeoutMs: 500 },
    });
    expect(() => parseStorageUrl('postgres://u@db/m?pool_max=0')).toThrow(/pool_max=0 must be a positive integer/);
  });
  it.each([
    ['foo:', /unknown storage url "foo:", expected sqlite:\/\/PATH .* or memory:\/\//],
    ['', /unknown storage url ""/],
    ['mysql://db/minnow', /unknown storage url "mysql:\/\/db\/minnow"/],
    ['postgres://:pw@/minnow', /is not a valid URL/],
    ['postgres://u:pw@db', /needs a host and a database/],
    ['sqlite://', /has no database file name/],
    ['sqlite:data/', /has no database file name/],
    ['sqlite://x.db?sync=full', /unknown option sync=full/],
    ['memory://?x=1', /takes no options/],
  ])('rejects %j', (url, message) => {
    expect(() => parseStorageUrl(url)).toThrow(message);
  });
});

describe('storageUrlFrom: the one default, for serve and backup alike', () => {
  it('takes the flag, else STORAGE_ENGINE (unless empty), else sqlite://./data/minnow.db', () => {
    expect(storageUrlFrom('memory://', { STORAGE_ENGINE: 'sqlite:a.db' })).toEqual({
      kind: 'memory',
      url: 'memory://',
    });
    expect(storageUrlFrom(undefined, { STORAGE_ENGINE: 'sqlite:a.db' })).toEqual({
      kind: 'sqlite',
      url: 'sqlite:a.db',
      path: 'a.db',
    });
    expect(storageUrlFrom(undefined, { STORAGE_ENGINE: '' })).toEqual({
      kind: 'sqlite',
      url: 'sqlite://./data/minnow.db',
      path: './data/minnow.db',
    });
    expect(storageUrlFrom(undefined, {})).toEqual({
      kind: 'sqlite',
      url: 'sqlite://./data/minnow.db',
      path: './data/minnow.db',
    });
  });
});

describe('openSyncStorage (what openStorage hands over through promised())', () => {
  const dir = mkdtempSync(join(tmpdir(), 'minnow-open-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens memory:// and sqlite:// with missing parent directories created', () => {
    const m = openSyncStorage('memory://');
    expect(m).toBeInstanceOf(MemoryStorage);
    expect(m.url).toBe('memory://');
    const url = `sqlite://${join(dir, 'a/b/c.db')}`;
    const s = openSyncStorage(url, { synchronous: 'full' });
    expect(s).toBeInstanceOf(SqliteStorage);
    expect(s.url).toBe(url);
    expect((s as SqliteStorage).database.pragma('synchronous', { simple: true })).toBe(2);
    s.close();
    expect(existsSync(join(dir, 'a/b/c.db'))).toBe(true);
  });

  it('opens a parsed URL, its ?synchronous= winning over the option', () => {
    const url = `sqlite://${join(dir, 'd.db')}?synchronous=full`;
    const s = openSyncStorage(parseStorageUrl(url), { synchronous: 'normal' });
    expect(s.url).toBe(url);
    expect((s as SqliteStorage).database.pragma('synchronous', { simple: true })).toBe(2);
    s.close();
  });
});
