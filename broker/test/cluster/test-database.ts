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
 * (and the database dropped) after them. `cluster()` is valid inside the tests. `storageUrlOf`
 * gives broker i another URL for the database (e.g. through a proxy the test can cut).
 */
export function useChildCluster(
  name: string,
  storageUrlOf?: (url: string, i: number) => string | Promise<string>,
): { cluster: () => ChildCluster } {
  const tmp = tempDir(`minnow-${name}-`);
  let db: TestDatabase | undefined;
  let cluster: ChildCluster | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(name.replace(/-/g, '_'));
    const url = db.url;
    const urls = await Promise.all([0, 1, 2].map((i) => storageUrlOf?.(url, i) ?? url));
    cluster = await startChildCluster((i) => urls[i]!, tmp.dir);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await db?.drop();
    tmp.cleanup();
  }, 60_000);
  return { cluster: () => cluster! };
}
