// What Kafka 4.1 answers (seen by `npm run compat`) when a request names one partition twice, and
// the offsets and codes of refused produces: Kafka keys Produce and Fetch by partition, so the
// partition is produced once (its last records) and answered once; ListOffsets answers each mention
// INVALID_REQUEST (KafkaApis' duplicatePartitions); a refused batch carries the log start offset
// when Kafka's log found the fault, -1 when the request itself was malformed.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import { encodeRecordBatch, RECORDS_COUNT, ATTRIBUTES, CRC } from '../../src/protocol/record-batch';
import { crc32c } from '../../src/protocol/crc32c';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const TOPIC = 'twice';
const batch = (value: string) => encodeRecordBatch({ records: [{ value: Buffer.from(value) }] });

describe('a partition named twice, and refused produces', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir));
    await broker.context.storage.createTopic(TOPIC, 2, {});
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const produce = (
    topicData: { name: string; partitionData: { index: number; records: Buffer | null }[] }[],
  ): Promise<m.ProduceResponse> =>
    conn.send(ApiKey.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData });

  it('Produce: stores only the last records of a partition named twice, and answers it once', async () => {
    const before = (await broker.context.storage.offsets(TOPIC, 0))!.highWatermark;
    const res = await produce([
      {
        name: TOPIC,
        partitionData: [
          { index: 0, records: batch('first') },
          { index: 1, records: batch('other') },
        ],
      },
      { name: TOPIC, partitionData: [{ index: 0, records: batch('last') }] },
    ]);
    expect(res.responses).toHaveLength(1);
    expect(res.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect((await broker.context.storage.offsets(TOPIC, 0))!.highWatermark).toBe(before + 1);
    const read = await broker.context.storage.read(TOPIC, 0, before, 1 << 20);
    expect(read.batches).toHaveLength(1);
    expect(read.batches[0]!.includes(Buffer.from('last'))).toBe(true);
  });

  it('Fetch: answers a partition named twice once, at its first place', async () => {
    const fetchPartition = (partitionMaxBytes: number) => ({
      partition: 0,
      currentLeaderEpoch: -1,
      fetchOffset: 0n,
      lastFetchedEpoch: -1,
      logStartOffset: -1n,
      partitionMaxBytes,
    });
    const res: m.FetchResponse = await conn.send(ApiKey.Fetch, 12, {
      ...m.defaultFetchRequest(),
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [
        { topic: TOPIC, partitions: [fetchPartition(1 << 20), { ...fetchPartition(1 << 20), partition: 1 }] },
        { topic: TOPIC, partitions: [fetchPartition(1 << 20)] },
      ],
    });
    const answered = res.responses.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p.partitionIndex}`));
    expect(answered).toEqual([`${TOPIC}-0`, `${TOPIC}-1`]);
  });

  it('ListOffsets: a partition named twice is INVALID_REQUEST at each mention, the others are answered', async () => {
    const latest = (partitionIndex: number) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n });
    const res: m.ListOffsetsResponse = await conn.send(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [
        { name: TOPIC, partitions: [latest(0), latest(1)] },
        { name: TOPIC, partitions: [latest(0)] },
      ],
    });
    const hw1 = BigInt((await broker.context.storage.offsets(TOPIC, 1))!.highWatermark);
    expect(res.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.offset]))).toEqual([
      [0, ErrorCode.INVALID_REQUEST, -1n],
      [1, ErrorCode.NONE, hw1],
      [0, ErrorCode.INVALID_REQUEST, -1n],
    ]);
  });

  it('Produce: a few stray bytes are "no record batch" (INVALID_RECORD), not a corrupt one', async () => {
    const res = await produce([{ name: TOPIC, partitionData: [{ index: 0, records: Buffer.from([1, 2, 3]) }] }]);
    expect(res.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
      logStartOffset: -1n,
    });
    expect(res.responses[0]!.partitionResponses[0]!.errorMessage).toMatch(/must have at least one record batch/);
  });

  it("Produce: a batch whose magic is not 0-2 is corrupt (CORRUPT_MESSAGE, -1), as Kafka's batch iterator finds it", async () => {
    const records = batch('m');
    records.writeInt8(3, 16); // the magic byte
    const res = await produce([{ name: TOPIC, partitionData: [{ index: 1, records }] }]);
    expect(res.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      logStartOffset: -1n,
    });
  });

  it('Produce: a record fault found by the log carries the log start offset; a failed CRC carries -1', async () => {
    await conn.send(ApiKey.DeleteRecords, 2, {
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, offset: 1n }] }],
      timeoutMs: 5000,
    });
    const logStart = BigInt((await broker.context.storage.offsets(TOPIC, 0))!.logStartOffset);
    expect(logStart).toBe(1n);
    const miscounted = batch('x');
    miscounted.writeInt32BE(5, RECORDS_COUNT);
    miscounted.writeUInt32BE(crc32c(miscounted, ATTRIBUTES), CRC);
    const bad = await produce([{ name: TOPIC, partitionData: [{ index: 0, records: miscounted }] }]);
    expect(bad.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
      logStartOffset: logStart,
    });
    const crc = batch('y');
    crc.writeUInt32BE((crc.readUInt32BE(CRC) + 1) >>> 0, CRC);
    const corrupt = await produce([{ name: TOPIC, partitionData: [{ index: 0, records: crc }] }]);
    expect(corrupt.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      logStartOffset: -1n,
    });
  });
});
