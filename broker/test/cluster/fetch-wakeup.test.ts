// A fetch long-polling on one broker is woken by an append through another broker (docs/postgres.md
// "Fetch long-poll": the appending broker NOTIFYs minnow_append after its commit, every broker
// LISTENs and wakes its waiters). Without the NOTIFY the waiting broker would see the record only
// at its max wait; the test asks for 30 s and wants the record before a 25 s timer fires.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import { decodeRecords, encodeRecordBatch } from '../../src/protocol/record-batch';
import { describeWithPostgres, useChildCluster } from './test-database';
import { recordBytes } from '../../src/protocol/records';

const MAX_WAIT_MS = 30_000;
const TOO_LATE_MS = 25_000;

const fetchPartition = (partition: number, fetchOffset: bigint): m.FetchRequestFetchPartition => ({
  partition,
  currentLeaderEpoch: -1,
  fetchOffset,
  lastFetchedEpoch: -1,
  logStartOffset: -1n,
  partitionMaxBytes: 1 << 20,
});

describeWithPostgres('fetch wake-up through another broker', () => {
  const { cluster } = useChildCluster('cluster-wakeup');
  const connections: KafkaConnection[] = [];
  const connect = async (i: number) => {
    const c = await KafkaConnection.connect('127.0.0.1', cluster().brokers[i]!.port, { requestTimeoutMs: 60_000 });
    connections.push(c);
    return c;
  };
  afterAll(() => connections.forEach((c) => c.close()));

  const produce = async (conn: KafkaConnection, topic: string, value: string) => {
    const res: m.ProduceResponse = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [
        {
          name: topic,
          partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value: Buffer.from(value) }] }) }],
        },
      ],
    });
    expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
    return Number(res.responses[0]!.partitionResponses[0]!.baseOffset);
  };

  /** Sends a long-polling Fetch at `offset`; resolves with its values, or 'too late' at 25 s. */
  const longPoll = (conn: KafkaConnection, topic: string, offset: bigint) => {
    let answered = false;
    const fetched = conn
      .send<m.FetchResponse>(ApiKey.Fetch, 12, {
        ...m.defaultFetchRequest(),
        maxWaitMs: MAX_WAIT_MS,
        minBytes: 1,
        topics: [{ topic, partitions: [fetchPartition(0, offset)] }],
      })
      .then((res) => {
        answered = true;
        const p = res.responses[0]!.partitions[0]!;
        expect(p.errorCode).toBe(ErrorCode.NONE);
        return decodeRecords(recordBytes(p.records ?? Buffer.alloc(0))).map((r) => String(r.value));
      });
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<'too late'>((resolve) => (timer = setTimeout(() => resolve('too late'), TOO_LATE_MS)));
    const result = Promise.race([fetched, tooLate]).finally(() => clearTimeout(timer));
    return { result, answered: () => answered };
  };

  it('answers a fetch waiting on broker 2 with a record produced through broker 1, before its max wait', async () => {
    const a = await connect(0);
    const b = await connect(1);
    const created: m.CreateTopicsResponse = await a.send(ApiKey.CreateTopics, 7, {
      ...m.defaultCreateTopicsRequest(),
      timeoutMs: 5000,
      topics: [{ name: 'wake', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);

    for (const [round, offset] of [
      ['first', 0n],
      ['second', 1n],
    ] as const) {
      const poll = longPoll(b, 'wake', offset);
      // Nothing to read yet: the fetch waits (it would answer at once if it had data).
      await new Promise((r) => setTimeout(r, 1000));
      expect(poll.answered()).toBe(false);
      expect(await produce(a, 'wake', `${round} record`)).toBe(Number(offset));
      expect(await poll.result).toEqual([`${round} record`]);
    }
  }, 60_000);
});
