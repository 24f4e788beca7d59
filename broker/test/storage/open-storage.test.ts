import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { openStorage, parseStorageUrl } from '../../src/storage/open-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';

describe('parseStorageUrl', () => {
  it.each([
    ['memory://', { kind: 'memory' }],
    ['memory:', { kind: 'memory' }],
    ['sqlite://data/minnow.db', { kind: 'sqlite', path: 'data/minnow.db' }],
    ['sqlite:///var/lib/minnow.db', { kind: 'sqlite', path: '/var/lib/minnow.db' }],
    ['sqlite:minnow.db', { kind: 'sqlite', path: 'minnow.db' }],
    ['sqlite:./data/broker.db', { kind: 'sqlite', path: './data/broker.db' }],
    ['sqlite://x.db?synchronous=full', { kind: 'sqlite', path: 'x.db', synchronous: 'full' }],
  ])('%s', (url, expected) => {
    expect(parseStorageUrl(url)).toEqual(expected);
  });
  it.each([
    ['foo:', /unknown storage url "foo:", expected sqlite:\/\/PATH .* or memory:\/\//],
    ['', /unknown storage url ""/],
    ['postgres://db/minnow', /unknown storage url "postgres:\/\/db\/minnow"/],
    ['sqlite://', /has no database file name/],
    ['sqlite:data/', /has no database file name/],
    ['sqlite://x.db?sync=full', /unknown option sync=full/],
    ['memory://?x=1', /takes no options/],
  ])('rejects %j', (url, message) => {
    expect(() => parseStorageUrl(url)).toThrow(message);
  });
});

describe('openStorage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'minnow-open-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens memory:// and sqlite:// with missing parent directories created', () => {
    const m = openStorage('memory://');
    expect(m).toBeInstanceOf(MemoryStorage);
    expect(m.url).toBe('memory://');
    const url = `sqlite://${join(dir, 'a/b/c.db')}`;
    const s = openStorage(url, { synchronous: 'full' });
    expect(s).toBeInstanceOf(SqliteStorage);
    expect(s.url).toBe(url);
    expect((s as SqliteStorage).database.pragma('synchronous', { simple: true })).toBe(2);
    s.close();
    expect(existsSync(join(dir, 'a/b/c.db'))).toBe(true);
  });
});
