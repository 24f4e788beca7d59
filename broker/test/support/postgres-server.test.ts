// The test PostgreSQL (postgres-server.ts): a private server starts with the settings the engine's
// tests rely on, databases are isolated, and no server outlives the process that started it,
// whether that process exits or is killed.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { describeWithTools, postgresBinDir } from './external-tools';
import { postgresServer, startPrivatePostgres } from './postgres-server';

async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new Client({ connectionString: url });
  c.on('error', () => {}); // the query's own rejection reports a failure
  await c.connect();
  try {
    return (await c.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

/** Whether something accepts connections at `url` (bounded: one attempt). */
async function accepts(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  // A server shutting down as we connect also says so as an 'error' event (57P01): not a failure.
  c.on('error', () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describeWithTools('postgresql')('test PostgreSQL server', () => {
  it('creates isolated databases and drops them on stop', async () => {
    const server = await postgresServer();
    const a = await server.createDatabase('support_a');
    const b = await server.createDatabase('support_a');
    expect(a).not.toBe(b);
    await query(a, 'CREATE TABLE only_in_a (x int); INSERT INTO only_in_a VALUES (1)');
    expect(await query(a, 'SELECT x FROM only_in_a')).toEqual([{ x: 1 }]);
    await expect(query(b, 'SELECT x FROM only_in_a')).rejects.toThrow(/does not exist/);
    const names = [a, b].map((u) => u.slice(u.lastIndexOf('/') + 1));
    await server.stop();
    const left = await query(server.url('postgres'), 'SELECT datname FROM pg_database');
    expect(left.map((r) => r.datname)).not.toEqual(expect.arrayContaining([names[0]]));
    expect(left.map((r) => r.datname)).not.toEqual(expect.arrayContaining([names[1]]));
  });

  it('reuses one server for every handle of a process', async () => {
    const one = await postgresServer();
    const two = await postgresServer();
    expect(one.url('x')).toBe(two.url('x'));
  });

  const withBinaries = postgresBinDir() ? it : it.skip;

  withBinaries('starts a private server with fsync on and room for 200 connections, and stops it', async () => {
    const server = await startPrivatePostgres();
    const url = `${server.baseUrl}/postgres`;
    try {
      expect(await query(url, 'SHOW fsync')).toEqual([{ fsync: 'on' }]);
      expect(await query(url, 'SHOW max_connections')).toEqual([{ max_connections: '200' }]);
      expect(server.baseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+$/);
    } finally {
      server.stop();
    }
    expect(await accepts(url)).toBe(false);
    expect(fs.existsSync(server.dir)).toBe(false);
  });

  // A child process takes the shared server, prints its URL, then (once the test saw the server
  // answer: told on stdin, else the exit raced the check) exits, or is killed.
  withBinaries.each([
    ['exits', "process.stdin.once('data', () => process.exit(0))"],
    ['is killed', 'setInterval(() => {}, 1000)'],
  ])('stops the shared server when its process %s', async (how, after) => {
    const module = path.join(__dirname, 'postgres-server.ts');
    const script = `require(${JSON.stringify(module)}).postgresServer().then((s) => { console.log(s.url('postgres')); ${after}; })`;
    const env = { ...process.env };
    delete env.MINNOW_TEST_PG_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`child exited (${code}) before printing its URL: ${out}`)));
    });
    expect(await accepts(url)).toBe(true);
    if (how === 'is killed') child.kill('SIGKILL');
    else child.stdin!.write('go\n');
    await until('the server to stop', async () => !(await accepts(url)));
  });
});
