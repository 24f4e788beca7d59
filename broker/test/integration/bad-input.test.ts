// Hostile and broken input: each gets its error or a closed connection, nothing is stored, and
// the broker keeps serving everyone else.
import * as net from 'node:net';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { ProduceResponse } from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { Writer } from '../../src/protocol/writer';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

/** Sends raw bytes and resolves with what came back before the broker closed (or 2 s passed). */
function rawExchange(port: number, bytes: Buffer): Promise<{ closed: boolean; received: Buffer }> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ closed: false, received: Buffer.concat(chunks) });
    }, 2000);
    s.on('data', (d) => chunks.push(d));
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, received: Buffer.concat(chunks) });
    });
    s.write(bytes);
  });
}

function frame(apiKey: number, apiVersion: number, body: Buffer): Buffer {
  const w = new Writer();
  w.int16(apiKey).int16(apiVersion).int32(7).nullableString('bad-client');
  w.raw(body);
  const payload = w.toBuffer();
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

describe('bad input', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { maxRequestBytes: 1024 * 1024 } });
    await broker.context.storage.createTopic('victim', 1, {});
  });
  afterAll(() => broker.stop());

  it('closes the connection on an unknown API key', async () => {
    const r = await rawExchange(broker.port, frame(999, 0, Buffer.alloc(0)));
    expect(r).toEqual({ closed: true, received: Buffer.alloc(0) });
  });

  it('closes the connection on a frame larger than the limit, before reading it', async () => {
    const size = Buffer.alloc(8);
    size.writeInt32BE(512 * 1024 * 1024);
    const r = await rawExchange(broker.port, size);
    expect(r.closed).toBe(true);
  });

  it('closes the connection on a truncated request body', async () => {
    const r = await rawExchange(broker.port, frame(ApiKey.Metadata, 1, Buffer.from([0, 0, 0, 5, 0, 3])));
    expect(r.closed).toBe(true);
  });

  it('answers a batch with a bad CRC with CORRUPT_MESSAGE and stores nothing', async () => {
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const batch = encodeRecordBatch({ records: [{ value: Buffer.from('hello') }] });
      batch[batch.length - 1]! ^= 0xff; // flip a byte the CRC covers
      const res: ProduceResponse = await conn.send(ApiKey.Produce, 7, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 1000,
        topicData: [{ name: 'victim', partitionData: [{ index: 0, records: batch }] }],
      });
      expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
      expect(await broker.context.storage.offsets('victim', 0)).toEqual({ logStartOffset: 0, highWatermark: 0 });
    } finally {
      conn.close();
    }
  });

  it('answers Produce v2 (old message format) with UNSUPPORTED_VERSION', async () => {
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const res: ProduceResponse = await conn.send(ApiKey.Produce, 2, {
        acks: 1,
        timeoutMs: 1000,
        topicData: [{ name: 'victim', partitionData: [{ index: 0, records: Buffer.alloc(30) }] }],
      });
      expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    } finally {
      conn.close();
    }
  });

  it('keeps serving other clients throughout', async () => {
    const flood = Array.from({ length: 20 }, (_, i) => rawExchange(broker.port, frame(1000 + i, 0, Buffer.alloc(0))));
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    try {
      const v = conn.version(ApiKey.Metadata, 1, 12);
      const md = await conn.send(ApiKey.Metadata, v, { topics: [{ name: 'victim' }], allowAutoTopicCreation: false });
      expect(md.topics[0].errorCode).toBe(ErrorCode.NONE);
    } finally {
      conn.close();
    }
    expect((await Promise.all(flood)).every((r) => r.closed)).toBe(true);
  });

  it('answers an ApiVersions request newer than v4 with error 35 and only the ApiVersions range in a v0 body, as Kafka', async () => {
    const r = await rawExchange(broker.port, frame(ApiKey.ApiVersions, 9, Buffer.alloc(0)));
    // size, correlation id 7, error 35, then the array of ranges: one entry, ApiVersions 0-4
    expect(r.received.readInt32BE(4)).toBe(7);
    expect(r.received.readInt16BE(8)).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(r.received.readInt32BE(10)).toBe(1);
    expect([r.received.readInt16BE(14), r.received.readInt16BE(16), r.received.readInt16BE(18)]).toEqual([
      ApiKey.ApiVersions,
      0,
      4,
    ]);
  });
});
