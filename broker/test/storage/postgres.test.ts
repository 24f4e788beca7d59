// The storage contract on postgres:// against a real PostgreSQL (test/support/postgres-server.ts):
// a fresh database per test, reopen = close and open again on the same database.
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
  beforeAll(async () => {
    server = await postgresServer();
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
      const url = await server.createDatabase('contract');
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
