// A real PostgreSQL for the tests of the postgres:// engine (issue 18: never a mock). With
// MINNOW_TEST_PG_URL set (postgres://user@host:port, no database) the tests use that server;
// otherwise each jest worker process starts one private server (initdb in a temporary folder, a
// free 127.0.0.1 port, fsync on: the tests check durability) on first use and every test file of
// that worker reuses it. It stops when the worker exits (an exit handler, and a watchdog process
// for a worker that is killed), so no postgres is ever left running. As root the server runs as
// the `postgres` user (initdb and postgres refuse root). Tests ask for it through
// describeWithTools('postgresql') (external-tools.ts): skipped when PostgreSQL is not installed.
import { execFile, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { postgresBinDir } from './external-tools';

const run = promisify(execFile);

/** postgres://user@host:port of a server to use instead of a private one (no database in it). */
export const PG_URL_ENV = 'MINNOW_TEST_PG_URL';

export interface PostgresServer {
  /** postgres://... of database `db` on this server. */
  url(db: string): string;
  /**
   * A new empty database (dropped first if a previous run left it), named `name` plus this
   * process's id and a counter so parallel workers and files never share one; returns its URL.
   * `template`: the URL of a database to copy instead (it must have no open connection).
   */
  createDatabase(name: string, template?: string): Promise<string>;
  /** Drops one database this handle created (by its URL), closing its connections first. */
  dropDatabase(url: string): Promise<void>;
  /** Drops the databases this handle created (the private server itself stops at process exit). */
  stop(): Promise<void>;
}

/** A server this process started: its superuser URL (no database) and how to stop it. */
export interface PrivateServer {
  baseUrl: string;
  dir: string;
  port: number;
  /** Stops the server (fast shutdown) and deletes its folder. */
  stop(): void;
}

/** The OS user to run the server as: `postgres` when we are root, else ourselves. */
function serverUser(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root needs a `postgres` user to run PostgreSQL');
  return { name: 'postgres', uid, gid: id('-g') };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** [command, args] running `bin` as the server's user. */
function asServerUser(bin: string, args: string[]): [string, string[]] {
  return serverUser() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function stopSync(binDir: string, dir: string): void {
  const [cmd, args] = asServerUser(path.join(binDir, 'pg_ctl'), [
    '-D',
    path.join(dir, 'data'),
    '-m',
    'fast',
    '-w',
    'stop',
  ]);
  if (fs.existsSync(path.join(dir, 'data', 'postmaster.pid')))
    spawnSync(cmd, args, { stdio: 'ignore', timeout: 60_000, cwd: os.tmpdir() });
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Starts a new private server: initdb -A trust into a folder under os.tmpdir(), then pg_ctl start on
 * a free port with its unix socket in the same folder. The caller stops it.
 */
export async function startPrivatePostgres(binDir = postgresBinDir()): Promise<PrivateServer> {
  if (!binDir) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const user = serverUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-pg-'));
  const data = path.join(dir, 'data');
  if (user) fs.chownSync(dir, user.uid, user.gid);
  try {
    // --no-sync: initdb's files are not flushed to disk one by one (~2 s here); the server then
    // runs with fsync on, which is what the durability tests rely on.
    const [initCmd, initArgs] = asServerUser(path.join(binDir, 'initdb'), [
      '-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-instructions', '--no-sync',
    ]); // prettier-ignore
    await run(initCmd, initArgs, { timeout: 120_000, cwd: dir });
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      // fsync on (the default, said here on purpose): the engine's durability is under test.
      const conf = [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'fsync = on',
        'max_connections = 200',
        'shared_buffers = 32MB',
        "log_min_messages = 'warning'",
      ];
      fs.writeFileSync(path.join(data, 'postgresql.auto.conf'), `${conf.join('\n')}\n`);
      if (user) fs.chownSync(path.join(data, 'postgresql.auto.conf'), user.uid, user.gid);
      const [cmd, args] = asServerUser(path.join(binDir, 'pg_ctl'), [
        '-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '120', 'start',
      ]); // prettier-ignore
      try {
        await run(cmd, args, { timeout: 150_000, cwd: dir });
        return { baseUrl: `postgres://postgres@127.0.0.1:${port}`, dir, port, stop: () => stopSync(binDir, dir) };
      } catch (err) {
        // Another process took the port between our probe and the server's bind: try another.
        if (attempt >= 2) throw err;
      }
    }
  } catch (err) {
    const log = fs.existsSync(path.join(dir, 'server.log'))
      ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8')
      : '';
    stopSync(binDir, dir);
    throw new Error(`could not start PostgreSQL: ${(err as Error).message}\n${log.slice(-2000)}`, { cause: err });
  }
}

/** Where this process's shared server is described (jest gives each test file its own modules). */
const stateFile = () => path.join(os.tmpdir(), `minnow-pg-worker-${process.pid}.json`);

interface SharedState {
  baseUrl: string;
  dir: string;
  binDir: string;
}

function alive(state: SharedState): boolean {
  try {
    const pid = Number(fs.readFileSync(path.join(state.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * This process's private server: started on first use, reused by the next test files of the same
 * jest worker, stopped when the process exits (or, if it is killed, by a watchdog that waits for it).
 */
async function sharedPrivateServer(): Promise<string> {
  const file = stateFile();
  if (fs.existsSync(file)) {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as SharedState;
    if (alive(state)) return state.baseUrl;
    stopSync(state.binDir, state.dir);
  }
  const binDir = postgresBinDir()!;
  const server = await startPrivatePostgres(binDir);
  const state: SharedState = { baseUrl: server.baseUrl, dir: server.dir, binDir };
  fs.writeFileSync(file, JSON.stringify(state));
  const cleanup = () => {
    server.stop();
    fs.rmSync(file, { force: true });
  };
  process.once('exit', cleanup);
  // A worker killed with SIGKILL runs no exit handler: this shell stops the server after it.
  const [cmd, args] = asServerUser(path.join(binDir, 'pg_ctl'), [
    '-D',
    path.join(server.dir, 'data'),
    '-m',
    'immediate',
    'stop',
  ]);
  const quoted = [cmd, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const watchdog = spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${quoted} >/dev/null 2>&1; rm -rf '${server.dir}' '${file}'`,
    ],
    { detached: true, stdio: 'ignore', cwd: os.tmpdir() },
  );
  watchdog.unref();
  return server.baseUrl;
}

let counter = 0;

/** The test PostgreSQL (see the top of this file). */
export async function postgresServer(): Promise<PostgresServer> {
  const external = process.env[PG_URL_ENV];
  const baseUrl = (external ?? (await sharedPrivateServer())).replace(/\/+$/, '');
  const created: string[] = [];
  const admin = async <T>(fn: (c: Client) => Promise<T>): Promise<T> => {
    const c = new Client({ connectionString: `${baseUrl}/postgres` });
    c.on('error', () => {}); // a lost connection also rejects the query in flight: reported there
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    url: (db) => `${baseUrl}/${db}`,
    async createDatabase(name, template) {
      const db = `${name}_${process.pid}_${++counter}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      const from = template === undefined ? '' : ` TEMPLATE ${template.slice(template.lastIndexOf('/') + 1)}`;
      await admin(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${db}${from}`);
      });
      created.push(db);
      return `${baseUrl}/${db}`;
    },
    async dropDatabase(url) {
      const db = url.slice(url.lastIndexOf('/') + 1);
      const at = created.indexOf(db);
      if (at < 0) throw new Error(`${db} was not created by this handle`);
      created.splice(at, 1);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
    },
    async stop() {
      const dbs = created.splice(0);
      if (dbs.length === 0) return;
      await admin(async (c) => {
        for (const db of dbs) await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      });
    },
  };
}
