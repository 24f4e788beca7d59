// `minnow serve` as users run it: configuration errors stop start-up with a clear message, and
// SIGTERM/SIGINT stop it cleanly (exit 0, database closed) even with a fetch long-polling.
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import {
  defaultFetchRequest,
  defaultJoinGroupRequest,
  type FetchResponse,
  type JoinGroupResponse,
} from '../../src/protocol/messages';
import { run, tempDir } from './helpers';
import { MINNOW, startChildBroker } from './serve-child';

describe('minnow serve', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('refuses a bad setting, naming the variable, the value and the expected form', async () => {
    const r = await run('node', [MINNOW, 'serve'], { env: { ...process.env, STORAGE_ENGINE: 'mysql://x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /STORAGE_ENGINE="mysql:\/\/x" is not valid: expected sqlite:\/\/PATH, sqlite:\/\/\/ABS\/PATH, memory:\/\/ or postgres:\/\/USER\[:PASSWORD\]@HOST\[:PORT\]\/DB/,
    );
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops cleanly on %s with a fetch in flight',
    async (signal) => {
      const broker = await startChildBroker(['--storage', `sqlite://${path.join(tmp.dir, `${signal}.db`)}`]);
      const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
      await conn.send(ApiKey.Metadata, 9, { topics: [{ name: 'sig' }], allowAutoTopicCreation: true });
      const fetch = conn.send(ApiKey.Fetch, 11, {
        replicaId: -1,
        maxWaitMs: 30_000,
        minBytes: 1,
        maxBytes: 1024,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: 'sig',
            partitions: [
              { partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1024 },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      });
      await new Promise((r) => setTimeout(r, 200));
      const exited = broker.stop(signal);
      const res = await fetch; // answered (empty) before the broker exits
      expect(res.responses[0].partitions[0].errorCode).toBe(0);
      expect(await exited).toBe(0);
      conn.close();
      expect(broker.stderr()).toMatch(/"msg":"stopped; database closed"/);
      for (const line of broker.stderr().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    },
    30_000,
  );

  // Issue 11 item 10: a fetch naming no partitions was never woken by stop(), and its 24.8-day
  // timer kept the process alive after the database closed. Kafka answers it at once
  // (ReplicaManager.fetchMessages: fetchInfos.isEmpty), and stop() now wakes every waiter. A
  // JoinGroup held by the initial rebalance delay is answered too (NOT_COORDINATOR: look again).
  it('SIGTERM answers every waiting request (an empty long-poll fetch, a held JoinGroup), then exits 0', async () => {
    const broker = await startChildBroker([
      '--storage',
      `sqlite://${path.join(tmp.dir, 'waiting.db')}`,
      '--group-initial-rebalance-delay-ms',
      '300000',
    ]);
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const groupConn = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const fetch = conn.send(ApiKey.Fetch, 12, {
        ...defaultFetchRequest(),
        maxWaitMs: 2 ** 31 - 1,
        minBytes: 1,
        maxBytes: 1024,
        topics: [],
      });
      const fetched = fetch.then(
        (r) => r,
        (err: Error) => err,
      );
      const join = {
        ...defaultJoinGroupRequest(),
        groupId: 'held',
        sessionTimeoutMs: 30_000,
        rebalanceTimeoutMs: 300_000,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      };
      const first: JoinGroupResponse = await groupConn.send(ApiKey.JoinGroup, 5, { ...join, memberId: '' });
      expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
      const joined = groupConn.send(ApiKey.JoinGroup, 5, { ...join, memberId: first.memberId }).then(
        (r: JoinGroupResponse) => r,
        (err: Error) => err,
      );
      await new Promise((r) => setTimeout(r, 200));
      // SIGTERM, then SIGKILL after 15 s (exit code null): a broker that never exits fails here
      // instead of hanging the suite. 15 s is past the 10 s drain after which stop() closes connections.
      expect(await broker.stop('SIGTERM')).toBe(0);
      const res = await fetched;
      expect(res).not.toBeInstanceOf(Error);
      expect((res as FetchResponse).errorCode).toBe(0);
      expect((res as FetchResponse).responses).toEqual([]);
      expect(await joined).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });
      expect(broker.stderr()).toMatch(/"msg":"stopped; database closed"/);
    } finally {
      conn.close();
      groupConn.close();
      await broker.stop('SIGKILL');
    }
  }, 30_000);

  // A SIGHUP (systemctl reload, a certificate renewal hook) while the broker is still opening its
  // database used to end the process: Node's default action for SIGHUP, before serve installed its
  // handler. A PostgreSQL that accepts and never answers holds start-up open for as long as needed.
  it('survives a SIGHUP that arrives during start-up', async () => {
    const sockets: net.Socket[] = [];
    let accepted: () => void = () => {};
    const connected = new Promise<void>((resolve) => (accepted = resolve));
    const silent = net.createServer((socket) => {
      sockets.push(socket);
      accepted();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const child = spawn(
      'node',
      [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `postgres://minnow@127.0.0.1:${port}/minnow`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await connected; // start-up is under way: the engine is connecting to the database
      child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 500));
      expect({ exitCode: child.exitCode, signal: child.signalCode }).toEqual({ exitCode: null, signal: null });
    } finally {
      child.kill('SIGKILL');
      await exited;
      for (const s of sockets) s.destroy();
      silent.close();
    }
  }, 30_000);
});
