// Connection-level limits (issue 11 items 5 and 6): idle connections are closed
// (CONNECTIONS_MAX_IDLE_MS) but not one waiting on a long-poll fetch; connections over
// MAX_CONNECTIONS / MAX_CONNECTIONS_PER_IP are refused on arrival; a flood of bad connections
// logs one warning line per kind, with a count, not one line each.
import * as net from 'node:net';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { RunningBroker } from '../../src/server/broker';
import { createLogger } from '../../src/logger';
import { startTestBroker, engineOf } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a socket; `closed` resolves with whether the broker closed it within `waitMs` (bytes received alongside). */
function openSocket(port: number, waitMs: number, localAddress?: string) {
  const s = net.connect({ host: '127.0.0.1', port, localAddress });
  s.on('error', () => {});
  const received: Buffer[] = [];
  s.on('data', (d) => received.push(d));
  const connected = new Promise<void>((resolve) => s.once('connect', () => resolve()));
  const closed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    s.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  return { socket: s, connected, closed, received };
}

const requestFrame = (apiKey: number, apiVersion: number, correlationId: number, body: unknown) =>
  encodeRequestFrame(apiKey, apiVersion, correlationId, 'limits-test', body);

const apiVersionsFrame = (correlationId: number) => requestFrame(ApiKey.ApiVersions, 0, correlationId, {});

/** Whether the connection answers an ApiVersions request (v0, raw). */
async function answers(s: net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 3000);
    s.once('data', () => {
      clearTimeout(timer);
      resolve(true);
    });
    s.write(apiVersionsFrame(1));
  });
}

describe('CONNECTIONS_MAX_IDLE_MS', () => {
  let broker: RunningBroker;
  const IDLE_MS = 500;
  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { connectionsMaxIdleMs: IDLE_MS } });
    await broker.context.storage.createTopic('quiet', 1, {});
  });
  afterAll(() => broker.stop());

  it('closes a connection that sends nothing', async () => {
    const idle = openSocket(broker.port, 10 * IDLE_MS);
    await idle.connected;
    expect(await idle.closed).toBe(true);
  });

  it('keeps a connection whose long-poll fetch outlasts the idle time, then closes it once idle after the answer', async () => {
    const poll = openSocket(broker.port, 20 * IDLE_MS);
    await poll.connected;
    const answered = new Promise<boolean>((resolve) => poll.socket.once('data', () => resolve(!poll.socket.destroyed)));
    poll.socket.write(
      requestFrame(ApiKey.Fetch, 11, 1, {
        replicaId: -1,
        maxWaitMs: 4 * IDLE_MS,
        minBytes: 1,
        maxBytes: 1024,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: 'quiet',
            partitions: [
              { partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1024 },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      }),
    );
    // The empty fetch is answered after 4 x the idle time, on the still open connection ...
    expect(await Promise.race([answered, poll.closed.then(() => false)])).toBe(true);
    // ... which, sending nothing more, is then closed.
    expect(await poll.closed).toBe(true);
  }, 20_000);

  it('keeps a connection that sends a request more often than the idle time', async () => {
    const busy = openSocket(broker.port, 20 * IDLE_MS);
    await busy.connected;
    for (let i = 0; i < 10; i++) {
      expect(await answers(busy.socket)).toBe(true);
      await sleep(IDLE_MS / 2);
    }
    expect(busy.socket.destroyed).toBe(false);
    busy.socket.destroy();
  }, 20_000);
});

describe('MAX_CONNECTIONS and MAX_CONNECTIONS_PER_IP', () => {
  it('closes connections over MAX_CONNECTIONS on arrival, and accepts again once one is gone', async () => {
    const broker = await startTestBroker('memory://', { config: { maxConnections: 3 } });
    const open = [openSocket(broker.port, 2000), openSocket(broker.port, 2000), openSocket(broker.port, 2000)];
    try {
      await Promise.all(open.map((o) => o.connected));
      for (const o of open) expect(await answers(o.socket)).toBe(true);
      const extra = openSocket(broker.port, 2000);
      expect(await extra.closed).toBe(true);
      expect(Buffer.concat(extra.received)).toHaveLength(0);
      open[0]!.socket.destroy();
      await open[0]!.closed;
      await sleep(100);
      const again = openSocket(broker.port, 2000);
      await again.connected;
      expect(await answers(again.socket)).toBe(true);
      again.socket.destroy();
    } finally {
      for (const o of open) o.socket.destroy();
      await broker.stop();
    }
  });

  it('closes connections over MAX_CONNECTIONS_PER_IP from that address only', async () => {
    const broker = await startTestBroker('memory://', { config: { maxConnectionsPerIp: 2 } });
    const open = [openSocket(broker.port, 2000), openSocket(broker.port, 2000)];
    try {
      await Promise.all(open.map((o) => o.connected));
      const third = openSocket(broker.port, 2000);
      expect(await third.closed).toBe(true);
      // Another address (127.0.0.2 is loopback too on Linux) has its own count.
      const other = openSocket(broker.port, 2000, '127.0.0.2');
      await other.connected;
      expect(await answers(other.socket)).toBe(true);
      other.socket.destroy();
      for (const o of open) expect(await answers(o.socket)).toBe(true);
    } finally {
      for (const o of open) o.socket.destroy();
      await broker.stop();
    }
  });
});

describe('warnings about bad connections', () => {
  it('logs the first of a kind and counts the rest, instead of a line per connection', async () => {
    const lines: string[] = [];
    const broker = await startTestBroker('memory://', { logger: createLogger('info', (l) => lines.push(l)) });
    const BAD = 40;
    const badFrame = Buffer.from([0, 0, 0, 10, 0x03, 0xe7, 0, 0, 0, 0, 0, 7, 0xff, 0xff]); // API key 999
    const bad = Array.from({ length: BAD }, () => openSocket(broker.port, 3000));
    for (const b of bad) b.socket.write(badFrame);
    expect((await Promise.all(bad.map((b) => b.closed))).every(Boolean)).toBe(true);
    await broker.stop(); // logs the count of those suppressed so far
    const about = lines.map((l) => JSON.parse(l)).filter((l) => /closing connection: unsupported API key/.test(l.msg));
    expect(about).toHaveLength(2);
    expect(about[0]).toMatchObject({ level: 'warn', msg: 'closing connection: unsupported API key', apiKey: 999 });
    expect(about[1]).toMatchObject({
      level: 'warn',
      msg: `closing connection: unsupported API key (${BAD - 1} more like this suppressed)`,
      suppressed: BAD - 1,
    });
  });
});

describe('QUEUED_MAX_REQUEST_BYTES', () => {
  it('answers every pipelined request when the connections together want several times the pool (no deadlock)', async () => {
    // Pool = one frame: 6 connections x 3 pipelined ~400 KiB produces take turns for it.
    const broker = await startTestBroker('memory://', {
      config: { maxRequestBytes: 1024 * 1024, queuedMaxRequestBytes: 1024 * 1024 },
    });
    await broker.context.storage.createTopic('pooled', 1, {});
    const conns = await Promise.all(
      Array.from({ length: 6 }, () => KafkaConnection.connect('127.0.0.1', broker.port, { requestTimeoutMs: 20_000 })),
    );
    try {
      const value = Buffer.alloc(400 * 1024, 3);
      const sends = conns.flatMap((c) =>
        Array.from({ length: 3 }, () =>
          c.send(ApiKey.Produce, 7, {
            transactionalId: null,
            acks: -1,
            timeoutMs: 5000,
            topicData: [
              { name: 'pooled', partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value }] }) }] },
            ],
          }),
        ),
      );
      const results = await Promise.all(sends);
      expect(results.map((r) => r.responses[0].partitionResponses[0].errorCode)).toEqual(
        Array(18).fill(ErrorCode.NONE),
      );
      expect(engineOf(broker).offsets('pooled', 0)?.highWatermark).toBe(18);
    } finally {
      for (const c of conns) c.close();
      await broker.stop();
    }
  }, 30_000);
});
