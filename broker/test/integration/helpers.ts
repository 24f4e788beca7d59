// Shared helpers for integration tests: a broker on 127.0.0.1:0 per test file, kcat runs with
// bounded time, temp directories that clean themselves up.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunningBroker, startBroker } from '../../src/server/broker';
import { createLogger, silentLogger } from '../../src/logger';
import type { SyncStorage } from '../../src/storage/storage';
import { syncEngine } from '../../src/storage/sync-adapter';
import type { Consumer, Kafka } from 'kafkajs';
import { postgresServer } from '../support/postgres-server';

export type Engine = 'memory' | 'sqlite';

/** The broker's in-process engine (sqlite://, memory://), for tests that inspect it synchronously. */
export function engineOf(broker: RunningBroker): SyncStorage {
  const engine = syncEngine(broker.context.storage);
  if (!engine) throw new Error(`${broker.context.storage.url} has no in-process engine`);
  return engine;
}

export function tempDir(prefix = 'minnow-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export async function startTestBroker(
  storageUrl: string,
  extra: Parameters<typeof startBroker>[0] = {},
): Promise<RunningBroker> {
  const logger = process.env.MINNOW_TEST_LOG ? createLogger('debug') : silentLogger;
  return startBroker({
    logger,
    ...extra,
    config: { listeners: [{ host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }], storageUrl, ...extra.config },
  });
}

/**
 * A new empty database on the test PostgreSQL (support/postgres-server.ts: a private server, or
 * MINNOW_TEST_PG_URL's) as a postgres:// storage URL, and how to drop it after the broker stopped.
 * Tests that use it run under describeWithTools('postgresql').
 */
export async function postgresStorageUrl(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = await postgresServer();
  const url = await server.createDatabase(name);
  return { url, drop: () => server.dropDatabase(url) };
}

export function storageUrlFor(engine: Engine, dir: string, name = 'minnow.db'): string {
  return engine === 'memory' ? 'memory://' : `sqlite://${path.join(dir, name)}`;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The JSON a script (the python drivers) prints last; a failed script fails the test with its stderr. */
export function lastJson(what: string, r: RunResult): any {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(-3000)}`);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(
      `${what} printed no JSON result; stdout: ${r.stdout.slice(-2000)} stderr: ${r.stderr.slice(-2000)}`,
    );
  }
}

/** Runs a command with optional stdin, killed after timeoutMs. */
export function run(
  cmd: string,
  args: string[],
  opts: { input?: string | Buffer; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

export function kcat(
  broker: RunningBroker,
  args: string[],
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return run('kcat', ['-b', `127.0.0.1:${broker.port}`, ...args], opts);
}

/**
 * kafkajs consumer options for a reader that stops once it has what it wanted: disconnect() waits
 * for every fetch in flight, and the broker holds a fetch of partitions with nothing new for
 * maxWaitTimeInMs (kafkajs's default 5 s, which each such disconnect waited out; Kafka's Java
 * consumer waits 500 ms). Not for tests about fetch waits.
 */
export const QUICK_FETCH = { maxWaitTimeInMs: 100 } as const;

/**
 * kafkajs's admin.setOffsets written out: a member of `groupId` seeks the partitions (committing
 * the offsets) and stops after its next fetch. setOffsets's own consumer pauses the topic and
 * waits out kafkajs's 5 s maxWaitTime for that fetch, and it never hears a refused commit (it then
 * waits for ever): this one fetches with QUICK_FETCH and fails with the commit's error.
 */
export async function setOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
  partitions: { partition: number; offset: string }[],
): Promise<void> {
  const consumer = kafka.consumer({ groupId, ...QUICK_FETCH });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.FETCH, () => resolve());
      consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
      consumer.run({ eachBatchAutoResolve: false, eachBatch: async () => {} }).catch(reject);
      consumer.pause([{ topic }]);
      for (const p of partitions) consumer.seek({ topic, ...p });
    });
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Subscribes a connected kafkajs consumer to `topic` from the beginning and collects values until
 * `count` have arrived (rejects after `timeoutMs` saying how many did), then disconnects it.
 */
export async function consumeValues(
  consumer: Consumer,
  topic: string,
  count: number,
  timeoutMs = 20_000,
): Promise<string[]> {
  const seen: string[] = [];
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${topic}: ${seen.length} of ${count} records within ${timeoutMs} ms`)),
        timeoutMs,
      );
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(String(message.value));
          if (seen.length < count) return;
          clearTimeout(timer);
          resolve();
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
