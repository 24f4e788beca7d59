// Storage contract for client quotas (KIP-546), run against every engine: what AlterClientQuotas
// stores is what DescribeClientQuotas and the quota managers read back, defaults included.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import type { ClientQuotaEntry, Storage } from '../../src/storage/storage';

const dir = mkdtempSync(join(tmpdir(), 'minnow-quota-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const engines: { name: string; open: () => Storage; reopen?: (s: Storage) => Storage }[] = [
  { name: 'memory', open: () => new MemoryStorage() },
  {
    name: 'sqlite',
    open: () => new SqliteStorage(join(dir, `q${++n}.db`)),
    reopen: (s) => {
      s.close();
      return new SqliteStorage((s as SqliteStorage).path);
    },
  },
];

/** Entries sorted by their entity's JSON, so engines' orders compare equal. */
const sorted = (entries: ClientQuotaEntry[]) =>
  [...entries].sort((a, b) => JSON.stringify(a.entity).localeCompare(JSON.stringify(b.entity)));

describe.each(engines)('$name storage: client quotas', ({ open, reopen }) => {
  let s: Storage;
  beforeEach(() => {
    s = open();
  });
  afterEach(() => s.close());

  it('starts with none', () => {
    expect(s.clientQuotas()).toEqual([]);
  });

  it('sets, overwrites and removes keys per entity, defaults (null names) apart from named ones', () => {
    s.alterClientQuotas([
      { entity: { user: 'alice', 'client-id': 'app' }, set: { producer_byte_rate: 1024 }, remove: [] },
      { entity: { user: 'alice' }, set: { consumer_byte_rate: 2048, request_percentage: 12.5 }, remove: [] },
      { entity: { user: null }, set: { producer_byte_rate: 100 }, remove: [] },
      { entity: { ip: null }, set: { connection_creation_rate: 5 }, remove: [] },
    ]);
    s.alterClientQuotas([
      { entity: { 'client-id': 'app', user: 'alice' }, set: { producer_byte_rate: 4096 }, remove: [] },
      { entity: { user: 'alice' }, set: {}, remove: ['consumer_byte_rate', 'not_there'] },
    ]);
    expect(sorted(s.clientQuotas())).toEqual(
      sorted([
        { entity: { 'client-id': 'app', user: 'alice' }, values: { producer_byte_rate: 4096 } },
        { entity: { user: 'alice' }, values: { request_percentage: 12.5 } },
        { entity: { user: null }, values: { producer_byte_rate: 100 } },
        { entity: { ip: null }, values: { connection_creation_rate: 5 } },
      ]),
    );
  });

  it('forgets an entity once its last key is removed', () => {
    s.alterClientQuotas([{ entity: { 'client-id': 'c' }, set: { producer_byte_rate: 10 }, remove: [] }]);
    s.alterClientQuotas([{ entity: { 'client-id': 'c' }, set: {}, remove: ['producer_byte_rate'] }]);
    expect(s.clientQuotas()).toEqual([]);
  });

  it('returns copies: changing a result does not change what is stored', () => {
    s.alterClientQuotas([{ entity: { user: 'bob' }, set: { producer_byte_rate: 10 }, remove: [] }]);
    s.clientQuotas()[0]!.values.producer_byte_rate = 99;
    expect(s.clientQuotas()[0]!.values).toEqual({ producer_byte_rate: 10 });
  });

  if (reopen) {
    it('keeps quotas across close and reopen', () => {
      s.alterClientQuotas([
        { entity: { user: null, 'client-id': null }, set: { consumer_byte_rate: 3e9 }, remove: [] },
        { entity: { ip: '10.0.0.1' }, set: { connection_creation_rate: 7 }, remove: [] },
      ]);
      const before = sorted(s.clientQuotas());
      s = reopen(s);
      expect(sorted(s.clientQuotas())).toEqual(before);
      expect(before).toHaveLength(2);
    });
  }
});
