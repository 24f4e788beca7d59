// `minnow serve` as users run it: configuration errors stop start-up with a clear message, and
// SIGTERM/SIGINT stop it cleanly (exit 0, database closed) even with a fetch long-polling.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { run, tempDir } from './helpers';

const MINNOW = path.resolve(__dirname, '../../bin/minnow.js');

describe('minnow serve', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('refuses a bad setting, naming the variable, the value and the expected form', async () => {
    const r = await run('node', [MINNOW, 'serve'], { env: { ...process.env, STORAGE_ENGINE: 'mysql://x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/STORAGE_ENGINE="mysql:\/\/x" is not valid: expected sqlite:\/\/PATH, sqlite:\/\/\/ABS\/PATH or memory:\/\//);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('stops cleanly on %s with a fetch in flight', async (signal) => {
    const db = path.join(tmp.dir, `${signal}.db`);
    const child = spawn('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${db}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`broker did not start: ${stderr}`)), 15_000);
      child.stderr!.on('data', (d) => {
        stderr += d;
        const m = /"listener":"127\.0\.0\.1:(\d+)"/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
    });
    const conn = await KafkaConnection.connect('127.0.0.1', port);
    await conn.send(ApiKey.Metadata, 9, { topics: [{ name: 'sig' }], allowAutoTopicCreation: true });
    const fetch = conn.send(ApiKey.Fetch, 11, {
      replicaId: -1,
      maxWaitMs: 30_000,
      minBytes: 1,
      maxBytes: 1024,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: 'sig', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1024 }] }],
      forgottenTopicsData: [],
      rackId: '',
    });
    await new Promise((r) => setTimeout(r, 200));
    child.kill(signal);
    const res = await fetch; // answered (empty) before the broker exits
    expect(res.responses[0].partitions[0].errorCode).toBe(0);
    expect(await exited).toBe(0);
    conn.close();
    expect(stderr).toMatch(/"msg":"stopped; database closed"/);
    for (const line of stderr.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  }, 30_000);
});
