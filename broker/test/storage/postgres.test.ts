// The storage contract on postgres:// against a real PostgreSQL (test/support/postgres-server.ts):
// one database the file migrated first (what open() makes of an empty database: the migrations
// alone), put back into that state before each test (postgres-reset.ts: a copied database per test
// cost ~1 s of CREATE and DROP DATABASE each); reopen = close and open again on the same database.
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import type { AsyncStorage } from '../../src/storage/storage';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { commitWithoutFsync, resetToPristine, takePristineState, type PristineState } from '../support/postgres-reset';
import { storageContract } from './contract';

describeWithTools('postgresql')('postgres', () => {
  let server: PostgresServer;
  /** Each open storage's database URL (Storage.url is redacted and may lack the password). */
  const urls = new WeakMap<AsyncStorage, string>();
  let migrated: string;
  let pristine: PristineState;
  beforeAll(async () => {
    server = await postgresServer();
    migrated = await server.createDatabase('contract');
    await commitWithoutFsync(migrated); // no test here crashes the server
    await (await PostgresStorage.open(migrated)).close();
    pristine = await takePristineState(migrated);
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
      // The contract's afterEach closed the last test's storage: nothing holds a lock.
      await resetToPristine(migrated, pristine);
      return open(migrated);
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
