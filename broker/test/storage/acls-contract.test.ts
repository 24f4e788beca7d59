// The ACL part of the storage contract (issue 13), run against every engine: bindings are a set
// (creating one twice stores it once), deletion removes exact bindings only, and sqlite:// keeps
// them across a reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AclBinding } from '../../src/protocol/acl';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import type { Storage } from '../../src/storage/storage';

const dir = mkdtempSync(join(tmpdir(), 'minnow-acl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const engines: [string, () => Storage, ((s: Storage) => Storage) | undefined][] = [
  ['memory', () => new MemoryStorage(), undefined],
  [
    'sqlite',
    () => new SqliteStorage(join(dir, `a${++n}.db`)),
    (s) => {
      s.close();
      return new SqliteStorage((s as SqliteStorage).path);
    },
  ],
];

const readTopic: AclBinding = {
  resourceType: 'TOPIC',
  resourceName: 'orders',
  patternType: 'LITERAL',
  principal: 'User:alice',
  host: '*',
  operation: 'READ',
  permissionType: 'ALLOW',
};
const denyPrefix: AclBinding = {
  ...readTopic,
  resourceName: 'ord',
  patternType: 'PREFIXED',
  host: '10.0.0.1',
  permissionType: 'DENY',
};
const groupAll: AclBinding = { ...readTopic, resourceType: 'GROUP', resourceName: 'g', operation: 'ALL' };

const sorted = (bs: AclBinding[]) => bs.map((b) => JSON.stringify(b)).sort();

describe.each(engines)('%s storage: ACL bindings', (_name, make, reopen) => {
  let s: Storage;
  beforeEach(() => {
    s = make();
  });
  afterEach(() => s.close());

  it('starts empty and lists what was created', () => {
    expect(s.listAcls()).toEqual([]);
    s.createAcls([readTopic, denyPrefix]);
    s.createAcls([groupAll]);
    expect(sorted(s.listAcls())).toEqual(sorted([readTopic, denyPrefix, groupAll]));
  });

  it('stores a binding once however often it is created', () => {
    s.createAcls([readTopic, { ...readTopic }]);
    s.createAcls([readTopic]);
    expect(s.listAcls()).toEqual([readTopic]);
  });

  it('tells apart bindings differing in any one field', () => {
    const variants: AclBinding[] = [
      readTopic,
      { ...readTopic, resourceType: 'GROUP' },
      { ...readTopic, resourceName: 'other' },
      { ...readTopic, patternType: 'PREFIXED' },
      { ...readTopic, principal: 'User:bob' },
      { ...readTopic, host: '127.0.0.1' },
      { ...readTopic, operation: 'WRITE' },
      { ...readTopic, permissionType: 'DENY' },
    ];
    s.createAcls(variants);
    expect(s.listAcls()).toHaveLength(variants.length);
  });

  it('deletes exact bindings only and counts those that existed', () => {
    s.createAcls([readTopic, denyPrefix, groupAll]);
    expect(s.deleteAcls([readTopic, { ...groupAll, operation: 'READ' }])).toBe(1);
    expect(sorted(s.listAcls())).toEqual(sorted([denyPrefix, groupAll]));
    expect(s.deleteAcls([readTopic])).toBe(0);
  });

  it('hands out copies: changing a listed binding changes nothing stored', () => {
    s.createAcls([readTopic]);
    s.listAcls()[0]!.resourceName = 'changed';
    expect(s.listAcls()).toEqual([readTopic]);
  });

  if (reopen) {
    it('keeps bindings across close and reopen', () => {
      s.createAcls([readTopic, denyPrefix]);
      s.deleteAcls([denyPrefix]);
      s = reopen(s);
      expect(s.listAcls()).toEqual([readTopic]);
    });
  }
});
