// Kafka strings holding U+0000 on postgres:// (text columns refuse it): stored NUL-escaped by Db
// (nul-escape.ts) and read back as sent, as sqlite:// does (pg-contract-failures.md, finding 2).
import { escapeNul, unescapeNul } from '../../src/storage/postgres/nul-escape';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { NOW_MS } from './fixtures';

describe('NUL escaping', () => {
  it('round-trips any string and leaves strings without U+0000 and U+0001 unchanged', () => {
    for (const s of ['', 'plain', '\u0000', '\u0001', '\u0001\u0002', 'a\u0000\u0001b\u0000', '\u0001x', 'é\u0000😀'])
      expect(unescapeNul(escapeNul(s))).toBe(s);
    expect(escapeNul('group-1')).toBe('group-1');
    expect(escapeNul('a\u0000b')).not.toContain('\u0000');
  });
});

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresServer();
});
afterAll(async () => {
  await server.stop();
}, 120_000);

describeWithTools('postgresql')('postgres engine: strings with U+0000', () => {
  let dbUrl: string;
  let storage: PostgresStorage;
  beforeEach(async () => {
    dbUrl = await server.createDatabase('pgfix_strings');
    storage = await PostgresStorage.open(dbUrl);
  });
  afterEach(async () => {
    await storage.close();
    await server.dropDatabase(dbUrl);
  });

  it('group ids and commit metadata come back as committed', async () => {
    await storage.createTopic('t', 1, {});
    const group = 'g\u0000nul';
    const metadata = 'm\u0000eta\u0001x';
    await storage.commitOffsets(group, [{ topic: 't', partition: 0, offset: 5, leaderEpoch: -1, metadata }], NOW_MS);
    expect(await storage.fetchOffsets(group)).toMatchObject([{ topic: 't', partition: 0, offset: 5, metadata }]);
    expect(await storage.fetchOffsets('g')).toEqual([]);
    expect(await storage.offsetGroups()).toEqual([group]);
    await storage.deleteOffsets(group, [{ topic: 't', partition: 0 }]);
    expect(await storage.fetchOffsets(group)).toEqual([]);
  });

  it('a transactional id with U+0000 runs a whole transaction with offsets', async () => {
    await storage.createTopic('t', 1, {});
    const id = 'tx\u0000nul';
    const group = 'g\u0000';
    await storage.initTransaction(id, 60_000, NOW_MS);
    await storage.addToTransaction(id, [{ topic: 't', partition: 0 }], [group], NOW_MS);
    expect(await storage.transaction(id)).toMatchObject({ transactionalId: id, state: 'Ongoing', groups: [group] });
    const metadata = '\u0000';
    await storage.commitTransactionalOffsets(
      id,
      group,
      [{ topic: 't', partition: 0, offset: 1, leaderEpoch: -1, metadata }],
      NOW_MS,
    );
    await storage.endTransaction(id, true, NOW_MS);
    expect(await storage.fetchOffsets(group)).toMatchObject([{ offset: 1, metadata }]);
    expect((await storage.transactions()).map((t) => t.transactionalId)).toEqual([id]);
  });

  it('ACLs whose principal holds U+0000 are created, listed and deleted', async () => {
    const binding = {
      resourceType: 'TOPIC' as const,
      resourceName: 't\u0000',
      patternType: 'LITERAL' as const,
      principal: 'User:a\u0000b',
      host: '*',
      operation: 'READ' as const,
      permissionType: 'ALLOW' as const,
    };
    await storage.createAcls([binding]);
    expect(await storage.listAcls()).toEqual([binding]);
    expect(await storage.deleteAcls([binding])).toBe(1);
    expect(await storage.listAcls()).toEqual([]);
  });
});
