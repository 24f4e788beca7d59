// A ShareFetch is under the broker's bound on fetched bytes held in memory
// (MINNOW_FETCH_RESPONSE_MEMORY_BYTES, server/response-memory.ts) as a Fetch is: its records are
// taken from the bound before each read and held until the client's socket has the response. A
// member whose client does not read keeps its response's bytes; another member's ShareFetch then
// acquires only what still fits, and gets the rest once memory frees (never an error). Before,
// a ShareFetch was bounded by fetch.max.bytes only and held no share of the bound.
import * as net from 'node:net';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { FrameReader } from '../../src/protocol/frame-reader';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages';
import { Reader } from '../../src/protocol/reader';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

const MiB = 1024 * 1024;
const GROUP = 'bounded-share';
const MEMBER_A = 'bWVtYmVyLWEtbmV2ZXItcmVh';
const MEMBER_B = 'bWVtYmVyLWItcmVhZHMtYWxs';
/** The bound: a response of 16 one-MB batches and room for four more. */
const BOUND = 20 * MiB;
const BATCH_VALUE = 1_000_000;

const shareFetchBody = (memberId: string, topicId: string, shareSessionEpoch: number) => ({
  groupId: GROUP,
  memberId,
  shareSessionEpoch,
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 16 * MiB,
  maxRecords: 1000,
  batchSize: 1000,
  topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
  forgottenTopicsData: [],
});

type Acquired = Array<{ firstOffset: bigint; lastOffset: bigint }>;
const acquiredCount = (res: any) =>
  res.responses
    .flatMap((t: any) => t.partitions.flatMap((p: any) => p.acquiredRecords as Acquired))
    .reduce((n: number, r: Acquired[number]) => n + Number(r.lastOffset - r.firstOffset) + 1, 0);

/** Polls `ok` every 20 ms, at most `ms`; true once it held. */
async function eventually(ok: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms && !ok(); waited += 20) await new Promise((r) => setTimeout(r, 20));
  return ok();
}

describe('ShareFetch under MINNOW_FETCH_RESPONSE_MEMORY_BYTES', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  let topicId: string;

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { fetchResponseMemoryBytes: BOUND } });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    await conn.send(ApiKey.Metadata, 9, { topics: [{ name: 'big' }], allowAutoTopicCreation: true });
    const value = Buffer.alloc(BATCH_VALUE, 7);
    for (let i = 0; i < 32; i++) {
      await conn.send(ApiKey.Produce, 7, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [
          { name: 'big', partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value }] }) }] },
        ],
      });
    }
    topicId = (await broker.context.storage.topic('big'))!.topicId;
    const altered = await conn.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: 32,
          resourceName: GROUP,
          configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }],
        },
      ],
      validateOnly: false,
    });
    expect(altered.responses[0].errorCode).toBe(0);
    for (const memberId of [MEMBER_A, MEMBER_B]) {
      const hb = await conn.send(ApiKey.ShareGroupHeartbeat, 1, {
        groupId: GROUP,
        memberId,
        memberEpoch: 0,
        rackId: null,
        subscribedTopicNames: ['big'],
      });
      expect(hb.errorCode).toBe(0);
    }
  });
  afterAll(async () => {
    conn?.close();
    await broker?.stop();
  });

  it("holds a non-reading member's response in the bound; another member acquires what fits, the rest once it frees", async () => {
    const memory = broker.context.responseMemory!;
    const a = net.connect({ host: '127.0.0.1', port: broker.port });
    a.pause(); // member A's client does not read (yet): its 16 MB response stays with the broker
    await new Promise((r) => a.once('connect', r));
    a.write(encodeRequestFrame(ApiKey.ShareFetch, 1, 1, 'not-reading', shareFetchBody(MEMBER_A, topicId, 0)));
    // Before: a ShareFetch took nothing from the bound (usedBytes stayed 0).
    expect(await eventually(() => memory.usedBytes >= 16 * BATCH_VALUE, 10_000)).toBe(true);

    const meanwhile = await conn.send(ApiKey.ShareFetch, 1, shareFetchBody(MEMBER_B, topicId, 0));
    expect(meanwhile.errorCode).toBe(0);
    // What was free: ~4.9 MB, room for 4 of the 1 MB batches (before: 16, as fetch.max.bytes allows).
    expect(acquiredCount(meanwhile)).toBe(4);
    expect(memory.usedBytes).toBeLessThanOrEqual(BOUND);

    // A's client reads: it gets its 16 records, and the memory they held goes back.
    const frames = new FrameReader(2 ** 30);
    const response = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no ShareFetch response for member A's client in 20 s")), 20_000);
      a.on('data', (d: Buffer) => {
        const [frame] = frames.push(d);
        if (!frame) return;
        clearTimeout(timer);
        resolve(frame);
      });
      a.resume();
    });
    const r = new Reader(response);
    r.int32(); // correlation id
    r.skipTaggedFields(); // response header v1
    expect(acquiredCount(API_SPEC_BY_KEY.get(ApiKey.ShareFetch)!.decodeResponse(r, 1))).toBe(16);
    expect(await eventually(() => memory.usedBytes === 0, 10_000)).toBe(true);

    const later = await conn.send(ApiKey.ShareFetch, 1, shareFetchBody(MEMBER_B, topicId, 1));
    expect(acquiredCount(later)).toBe(12); // the rest of the 32
    a.destroy();
  }, 60_000);
});
