// The floors and ceilings `npm run bench` sets minnow's figures beside, each measured in a child
// process: a bare Node broker's memory, raw SQLite commits (sqlite-ceiling.ts,
// wal-checkpoint.bench.ts) and a bare TCP server (loopback-floor.bench.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BROKER_DIR } from './processes';
import type { PacedResult, Results } from './results';
import type { CeilingResult } from './sqlite-ceiling';

/**
 * The least resident memory any Node.js broker on better-sqlite3 can have here: node, a listening
 * TCP server and one WAL database with a row written, sampled after 3 s idle like the broker.
 */
export function nodeBrokerFloorRss(dir: string): number {
  const script = [
    "require('node:net').createServer().listen(0, '127.0.0.1');",
    `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});`,
    `const db = new Database(${JSON.stringify(path.join(dir, 'floor.db'))});`,
    "db.pragma('journal_mode = WAL'); db.exec('CREATE TABLE t (x)'); db.prepare('INSERT INTO t VALUES (1)').run();",
    'setTimeout(() => { process.stdout.write(String(process.memoryUsage().rss)); process.exit(0); }, 3000);',
  ].join('\n');
  try {
    return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  } catch {
    return NaN;
  }
}

export function dbBytes(file: string): number {
  return ['', '-wal', '-shm'].reduce((sum, ext) => sum + (existsSync(file + ext) ? statSync(file + ext).size : 0), 0);
}

export function ceiling(recordSize: number, batchSize: number, perTxn: number, seconds: number): CeilingResult {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'minnow-ceiling-'));
  try {
    const out = execFileSync(
      process.execPath,
      [
        '-r',
        require.resolve('tsx/cjs'),
        path.join(BROKER_DIR, 'bench', 'sqlite-ceiling.ts'),
        dir,
        String(recordSize),
        String(batchSize),
        String(perTxn),
        String(seconds),
      ],
      {
        cwd: BROKER_DIR,
        encoding: 'utf8',
      },
    );
    return JSON.parse(out.trim().split('\n').pop()!) as CeilingResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** bench/wal-checkpoint.bench.ts: raw SQLite commits paced like the broker's, checkpoints inline and on a worker. */
export function pacedStorage(commitsPerSec: number, blobBytes: number, seconds: number): PacedResult[] {
  const out = execFileSync(
    process.execPath,
    [
      '-r',
      require.resolve('tsx/cjs'),
      path.join(BROKER_DIR, 'bench', 'wal-checkpoint.bench.ts'),
      String(commitsPerSec),
      String(blobBytes),
      String(seconds),
    ],
    {
      cwd: BROKER_DIR,
      encoding: 'utf8',
    },
  );
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as PacedResult);
}

/** bench/loopback-floor.bench.ts: a bare Node TCP server answering `requestsPerSec` requests of `requestBytes`. */
export function socketFloor(requestsPerSec: number, requestBytes: number, seconds: number): Results['seedNetwork'] {
  const out = execFileSync(
    process.execPath,
    [
      '-r',
      require.resolve('tsx/cjs'),
      path.join(BROKER_DIR, 'bench', 'loopback-floor.bench.ts'),
      String(requestsPerSec),
      String(requestBytes),
      String(seconds),
    ],
    { cwd: BROKER_DIR, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Results['seedNetwork'];
}
