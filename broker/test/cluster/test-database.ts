// A fresh database per test file on the tests' PostgreSQL (support/postgres-server.ts: the server
// MINNOW_TEST_PG_URL names, else a private one per jest worker); skipped without PostgreSQL.
import { describeWithTools } from '../support/external-tools';
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
