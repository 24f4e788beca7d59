// A fresh database per test file on the tests' PostgreSQL (support/postgres-server.ts: the server
// MINNOW_TEST_PG_URL names, else a private one per jest worker); skipped without PostgreSQL.
import { tempDir } from '../integration/helpers';
import { describeWithTools } from '../support/external-tools';
import { startChildCluster, type ChildCluster } from './child-cluster';
import { postgresServer } from '../support/postgres-server';

export const describeWithPostgres = describeWithTools('postgresql');

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const server = await postgresServer();
  const url = await server.createDatabase(prefix);
  return { url, drop: () => server.stop() };
}

/**
 * A describe block's three child brokers on a fresh database: started before its tests, stopped
 * (and the database dropped) after them. `cluster()` is valid inside the tests.
 */
export function useChildCluster(name: string): { cluster: () => ChildCluster } {
  const tmp = tempDir(`minnow-${name}-`);
  let db: TestDatabase | undefined;
  let cluster: ChildCluster | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(name.replace(/-/g, '_'));
    cluster = await startChildCluster(db.url, tmp.dir);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await db?.drop();
    tmp.cleanup();
  }, 60_000);
  return { cluster: () => cluster! };
}
