// The storage contract on postgres:// against a real PostgreSQL (test/support/postgres-server.ts):
// a fresh database per test, reopen = close and open again on the same database. Each is a copy
// of one the file migrated first: what open() makes of an empty database (the migrations alone; it
// writes no other row), without running the migrations ~100 times (the engine's tests cover them).
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import type { AsyncStorage } from '../../src/storage/storage';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { storageContract } from './contract';

describeWithTools('postgresql')('postgres', () => {
  let server: PostgresServer;
  /** Each open storage's database URL (Storage.url is redacted and may lack the password). */
  const urls = new WeakMap<AsyncStorage, string>();
  const databases: string[] = [];
  let migrated: string;
  beforeAll(async () => {
    server = await postgresServer();
    migrated = await server.createDatabase('contract_template');
    await (await PostgresStorage.open(migrated)).close();
  });
  afterEach(async () => {
    // After the contract's own afterEach closed the storage.
    for (const url of databases.splice(0)) await server.dropDatabase(url);
  });
  afterAll(() => server?.stop());

  const open = async (url: string) => {
    const s = await PostgresStorage.open(url);
    urls.set(s, url);
    return s;
  };

  storageContract(
    'postgres',
    async () => {
      const url = await server.createDatabase('contract', migrated);
      databases.push(url);
      return open(url);
    },
    async (s) => {
      const url = urls.get(s)!;
      await s.close();
      return open(url);
    },
    {
      // ~32k initProducerId round trips would take minutes: jump to near the epoch limit instead.
      fastForwardEpoch: async (s, transactionalId, epoch) => {
        const { db } = s as PostgresStorage;
        await db.query('UPDATE txn SET producer_epoch = $2 WHERE transactional_id = $1', [transactionalId, epoch]);
        await db.query(
          'UPDATE producer SET epoch = $2 WHERE producer_id = (SELECT producer_id FROM txn WHERE transactional_id = $1)',
          [transactionalId, epoch],
        );
      },
    },
  );
});
