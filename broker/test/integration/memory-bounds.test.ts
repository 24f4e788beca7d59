// Memory a careless or hostile client can make the broker hold (issue 11 items 1 and 3), measured
// on `minnow serve` in a child process: a client that pipelines fetches and never reads, and
// connections trickling big frames.
import * as net from 'node:net';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import { FrameReader } from '../../src/protocol/frame-reader';
import { ChildBroker, MiB, startChildBroker } from './serve-child';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const requestFrame = (apiKey: number, apiVersion: number, correlationId: number, body: unknown) =>
  encodeRequestFrame(apiKey, apiVersion, correlationId, 'memory-test', body);

/** Samples the broker's peak RSS until it passes `limit` or `ms` elapse; returns the peak. */
async function watchPeak(broker: ChildBroker, limit: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let hwm = broker.memory().hwm;
  while (Date.now() < until && hwm <= limit) {
    await sleep(100);
    hwm = broker.memory().hwm;
  }
  return hwm;
}

describe('broker memory under careless clients (child process)', () => {
  it('a client that pipelines fetches of a big partition and never reads keeps broker RSS bounded', async () => {
    const broker = await startChildBroker(['--storage', 'memory://']);
    const PARTITION_BYTES = 8 * MiB;
    const FETCHES = 48;
    try {
      const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
      await conn.send(ApiKey.Metadata, 9, { topics: [{ name: 'big' }], allowAutoTopicCreation: true });
      const value = Buffer.alloc(64 * 1024, 7);
      for (let i = 0; i < PARTITION_BYTES / MiB; i++) {
        const records = encodeRecordBatch({ records: Array.from({ length: 15 }, () => ({ value })) });
        await conn.send(ApiKey.Produce, 7, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 'big', partitionData: [{ index: 0, records }] }],
        });
      }
      conn.close();
      const baseline = broker.memory().hwm;
      // Bound: the response bytes a connection may leave unread (1 MiB) + the one fetch response
      // being written when it stopped (8 MiB here) + its encoding copy and GC slack. Without
      // backpressure the broker writes all 48 responses into the socket: 48 x 8 MiB = 384 MiB.
      const bound = baseline + 64 * MiB;
      const fetch = (id: number) =>
        requestFrame(ApiKey.Fetch, 11, id, {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 1,
          maxBytes: PARTITION_BYTES * 2,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            {
              topic: 'big',
              partitions: [
                {
                  partition: 0,
                  currentLeaderEpoch: -1,
                  fetchOffset: 0n,
                  logStartOffset: -1n,
                  partitionMaxBytes: PARTITION_BYTES * 2,
                },
              ],
            },
          ],
          forgottenTopicsData: [],
          rackId: '',
        });
      const sock = net.connect({ host: '127.0.0.1', port: broker.port });
      sock.pause(); // never read until the end
      await new Promise((r) => sock.once('connect', r));
      sock.write(Buffer.concat(Array.from({ length: FETCHES }, (_, i) => fetch(i + 1))));
      const peak = await watchPeak(broker, bound, 6000);
      // Now read: every fetch is still answered, and the peak stays under the bound throughout.
      let responses = 0;
      const frames = new FrameReader(2 ** 30);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${responses} of ${FETCHES} responses in 30 s`)), 30_000);
        sock.on('data', (d: Buffer) => {
          responses += frames.push(d).length;
          if (responses === FETCHES) {
            clearTimeout(timer);
            resolve();
          }
        });
        sock.resume();
      });
      sock.destroy();
      const after = broker.memory().hwm;
      console.log(
        `non-reading client: broker VmHWM baseline ${(baseline / MiB).toFixed(0)} MiB, peak while unread ${(peak / MiB).toFixed(0)} MiB, after reading all ${(after / MiB).toFixed(0)} MiB`,
      );
      expect(responses).toBe(FETCHES);
      expect(peak).toBeLessThanOrEqual(bound);
      expect(after).toBeLessThanOrEqual(bound);
    } finally {
      await broker.stop();
    }
  }, 60_000);

  it('connections trickling big frames hold no more than QUEUED_MAX_REQUEST_BYTES', async () => {
    const FRAME = 32 * MiB;
    const POOL = 64 * MiB;
    const broker = await startChildBroker(['--storage', 'memory://'], {
      SOCKET_REQUEST_MAX_BYTES: String(FRAME),
      QUEUED_MAX_REQUEST_BYTES: String(POOL),
    });
    const sockets: net.Socket[] = [];
    try {
      const baseline = broker.memory().hwm;
      // Bound: the pool (two of the 32 MiB frames are admitted) + what each paused connection had
      // already read past its prefix (one 64 KiB read) + 64 MiB for the socket reads copied into
      // the frames (60 MiB of 64 KiB buffers) and not yet collected (measured: ~30 MiB). Without
      // the pool, 8 x 30 MiB = 240 MiB are held (measured on the code before: +240 MiB).
      const bound = baseline + POOL + 64 * MiB;
      const SEND = 30 * MiB; // of each 32 MiB frame: never complete, so nothing is ever answered
      const chunk = Buffer.alloc(256 * 1024, 1);
      const prefix = Buffer.alloc(4);
      prefix.writeInt32BE(FRAME);
      const sent: number[] = [];
      const until = Date.now() + 8000;
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const s = net.connect({ host: '127.0.0.1', port: broker.port });
          sockets.push(s);
          s.on('error', () => {});
          await new Promise((r) => s.once('connect', r));
          s.write(prefix);
          sent[i] = 0;
          // Trickle: a chunk at a time, waiting while the broker does not read (bounded by `until`).
          while (sent[i]! < SEND && Date.now() < until) {
            sent[i]! += chunk.length;
            if (!s.write(chunk))
              await Promise.race([new Promise((r) => s.once('drain', r)), sleep(until - Date.now())]);
            await sleep(5);
          }
        }),
      );
      const peak = await watchPeak(broker, bound, 1000);
      const accepted = sent.filter((n) => n >= SEND).length;
      console.log(
        `trickled frames: broker VmHWM baseline ${(baseline / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB; connections that sent all ${SEND / MiB} MiB: ${accepted} of 8 (sent MiB: ${sent.map((n) => Math.round(n / MiB)).join(',')})`,
      );
      expect(peak).toBeLessThanOrEqual(bound);
      // The pool is released when those connections go: a new client is served.
      for (const s of sockets) s.destroy();
      await sleep(200);
      const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
      const md = await conn.send(ApiKey.Metadata, 9, { topics: [], allowAutoTopicCreation: false });
      expect(md.brokers).toHaveLength(1);
      conn.close();
    } finally {
      for (const s of sockets) s.destroy();
      await broker.stop();
    }
  }, 60_000);
});
