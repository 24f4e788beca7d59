// Issue 10, items 1-2 against a real broker with raw Produce frames: a batch whose header says
// maxTimestamp -1 (sarama < 1.45.1) is stored with the maximum of its records, so ListOffsets by
// time finds it and retention keeps it; batches with a valid CRC but broken records are refused
// with Kafka's error codes and nothing is stored, so kcat and kafkajs keep reading.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaClient } from '../../src/client/client';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { CompressionType } from '../../src/protocol/compression';
import { crc32c } from '../../src/protocol/crc32c';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { ProduceResponse } from '../../src/protocol/messages';
import {
  ATTRIBUTES,
  BATCH_HEADER_SIZE,
  CRC,
  LAST_OFFSET_DELTA,
  MAX_TIMESTAMP,
  RECORDS_COUNT,
  encodeRecordBatch,
  verifyBatchCrc,
} from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { Engine, kcat, startTestBroker, storageUrlFor, tempDir, engineOf } from './helpers';

const TOPIC = 'checked';
const HOUR = 3_600_000;

function recrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES), CRC);
  return batch;
}

function values(prefix: string, n: number, timestamp: number) {
  return Array.from({ length: n }, (_, i) => ({
    value: Buffer.from(`${prefix}-${i}`),
    timestamp: BigInt(timestamp + i),
  }));
}

/** Broken batches, each behind a valid CRC, with the answer Kafka gives. */
const corrupt: [string, () => Buffer, number][] = [
  [
    'garbage record bytes',
    () => {
      const b = encodeRecordBatch({ records: values('garbage', 3, Date.now()) });
      b.fill(0xfe, BATCH_HEADER_SIZE, BATCH_HEADER_SIZE + 12);
      return recrc(b);
    },
    ErrorCode.INVALID_RECORD,
  ],
  [
    'a gzip flag over plain bytes',
    () => {
      const b = encodeRecordBatch({ records: values('plain', 3, Date.now()) });
      b.writeInt16BE(b.readInt16BE(ATTRIBUTES) | CompressionType.Gzip, ATTRIBUTES);
      return recrc(b);
    },
    ErrorCode.INVALID_RECORD,
  ],
  [
    'a header count of 1000 over 2 records',
    () => {
      const b = encodeRecordBatch({ records: values('short', 2, Date.now()), compression: CompressionType.Snappy });
      b.writeInt32BE(1000, RECORDS_COUNT);
      b.writeInt32BE(999, LAST_OFFSET_DELTA);
      return recrc(b);
    },
    ErrorCode.INVALID_RECORD,
  ],
  [
    'a record length past the end',
    () => {
      const b = encodeRecordBatch({ records: values('long', 1, Date.now()) });
      b[BATCH_HEADER_SIZE] = 0x7e; // zigzag 63: more bytes than the record holds
      return recrc(b);
    },
    ErrorCode.INVALID_RECORD,
  ],
];

describeWithTools('kcat').each<Engine>(['memory', 'sqlite'])('produce validation against %s storage', (engine) => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();
  const expected: string[] = [];

  const produce = async (batch: Buffer) => {
    const res: ProduceResponse = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }],
    });
    return res.responses[0]!.partitionResponses[0]!;
  };
  const offsets = () => engineOf(broker).offsets(TOPIC, 0);

  beforeAll(async () => {
    // Groups form at once (the consumer is its group's only member: it waited the 3 s initial delay).
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir), { config: { groupInitialRebalanceDelayMs: 0 } });
    engineOf(broker).createTopic(TOPIC, 1, {
      'retention.ms': String(HOUR),
      'message.timestamp.before.max.ms': String(HOUR),
    });
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const lines = ['before-0', 'before-1', 'before-2'];
    const p = await kcat(broker, ['-P', '-t', TOPIC], { input: `${lines.join('\n')}\n` });
    expect(p.code).toBe(0);
    expected.push(...lines);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  it('stores a batch sent with maxTimestamp -1 under the maximum of its records', async () => {
    const at = Date.now() + 10 * 60_000; // ahead of every other record, so ListOffsets picks this batch
    // gzip: the one codec kafkajs reads without a plugin
    const batch = encodeRecordBatch({
      records: values('sarama', 3, at),
      maxTimestamp: -1n,
      compression: CompressionType.Gzip,
    });
    const r = await produce(batch);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expected.push('sarama-0', 'sarama-1', 'sarama-2');
    const offset = Number(r.baseOffset);

    const stored = engineOf(broker).read(TOPIC, 0, offset, 1 << 20).batches[0]!;
    expect(stored.readBigInt64BE(MAX_TIMESTAMP)).toBe(BigInt(at + 2));
    expect(verifyBatchCrc(stored)).toBe(true);

    const client = new KafkaClient(`127.0.0.1:${broker.port}`);
    try {
      const leader = (await client.topic(TOPIC)).partitions[0]!.leader;
      expect(await client.listOffset(TOPIC, 0, leader, BigInt(at))).toBe(BigInt(offset));
      expect(await client.listOffset(TOPIC, 0, leader, BigInt(at + 2))).toBe(BigInt(offset + 2));
    } finally {
      client.close();
    }

    // retention.ms = 1 hour: fresh records stay (with maxTimestamp -1 they all went at the first sweep).
    const before = offsets();
    const swept = engineOf(broker).enforceRetention(
      broker.context.now(),
      { retentionMs: 7 * 24 * HOUR, retentionBytes: -1 },
      1000,
    );
    expect(swept.deletedBatches).toBe(0);
    expect(offsets()).toEqual(before);
  });

  it.each(corrupt)('refuses %s with its Kafka error code and stores nothing', async (_what, make, errorCode) => {
    const before = offsets();
    const r = await produce(make());
    expect(r.errorCode).toBe(errorCode);
    expect(r.recordErrors).toEqual([]);
    expect(r.errorMessage).toEqual(expect.any(String));
    expect(offsets()).toEqual(before);
  });

  it('refuses records older than message.timestamp.before.max.ms with INVALID_TIMESTAMP and their record errors', async () => {
    const before = offsets();
    const now = Date.now();
    const batch = encodeRecordBatch({
      baseTimestamp: BigInt(now),
      records: [
        { value: Buffer.from('fresh'), timestamp: BigInt(now) },
        { value: Buffer.from('stale'), timestamp: BigInt(now - 2 * HOUR) },
      ],
    });
    const r = await produce(batch);
    expect(r.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(r.errorMessage).toBe('One or more records have been rejected due to invalid timestamp');
    expect(r.recordErrors).toEqual([
      {
        batchIndex: 1,
        batchIndexErrorMessage: expect.stringMatching(
          new RegExp(
            `^Timestamp ${now - 2 * HOUR} of message with offset 1 is out of range\\. The timestamp should be within \\[\\d+, -?\\d+\\]$`,
          ),
        ),
      },
    ]);
    expect(offsets()).toEqual(before);
  });

  it('kcat and kafkajs read every valid record, before and after the refused ones', async () => {
    const lines = ['after-0', 'after-1'];
    const p = await kcat(broker, ['-P', '-t', TOPIC, '-z', 'gzip'], { input: `${lines.join('\n')}\n` });
    expect(p.code).toBe(0);
    expected.push(...lines);

    const c = await kcat(broker, ['-C', '-t', TOPIC, '-o', 'beginning', '-e', '-f', '%s\n'], { timeoutMs: 20_000 });
    expect(c.code).toBe(0);
    expect(c.stdout.trimEnd().split('\n')).toEqual(expected);

    const kafka = new Kafka({
      clientId: 'validation-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });
    const consumer = kafka.consumer({ groupId: `validation-${engine}` });
    const seen: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`kafkajs read ${seen.length} of ${expected.length} records within 20 s: ${seen.join(', ')}`),
            ),
          20_000,
        );
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push(message.value!.toString());
            if (seen.length >= expected.length) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    expect(seen).toEqual(expected);
  });
});
