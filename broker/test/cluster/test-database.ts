// A fresh database per test file on the PostgreSQL the tests are given. Until the test server
// support (broker/test/support/postgres-server.ts) lands: MINNOW_TEST_PG_URL, e.g.
// postgres://postgres@127.0.0.1:5433; the suite is skipped without it.
import { Client } from 'pg';

export const TEST_PG_URL = process.env.MINNOW_TEST_PG_URL;

export const describeWithPostgres = TEST_PG_URL ? describe : describe.skip;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(TEST_PG_URL!);
  u.pathname = `/${name}`;
  const url = u.toString();
  return {
    url,
    async drop() {
      const c = new Client({ connectionString: TEST_PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
